package gardenercontrollermanager

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":         rendertest.Cluster("runtime"),
	"virtual_cluster": rendertest.Cluster("virtual"),
}).AsValueMap()

func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func values() Values {
	v := Type.Defaults()
	v.Cluster, v.VirtualCluster = decode.Cluster{Name: "runtime"}, decode.Cluster{Name: "virtual"}
	return v
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "gardener-controller-manager"}, map[string]cty.Value{
		"default": config(nil),
		"ha-customised": config(map[string]cty.Value{
			"high_availability":             cty.True,
			"log_level":                     cty.StringVal("error"),
			"event_ttl":                     cty.StringVal("24h"),
			"project_minimum_lifetime_days": cty.NumberIntVal(60),
			"feature_gates":                 cty.MapVal(map[string]cty.Value{"ShootForceDeletion": cty.True}),
			"project_quota": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
				"hard": cty.MapVal(map[string]cty.Value{
					"count/shoots.core.gardener.cloud": cty.StringVal("100"),
					"count/secrets":                    cty.StringVal("800"),
				}),
				"labels":           cty.MapVal(map[string]cty.Value{"team": cty.StringVal("ops")}),
				"annotations":      cty.NullVal(cty.Map(cty.String)),
				"project_selector": cty.NullVal(cty.Map(cty.String)),
			})}),
		}),
	})
}

func componentConfig(t *testing.T, objs []render.Object) map[string]any {
	t.Helper()
	data, _, _ := unstructured.NestedString(rendertest.MustFind(t, objs, "ConfigMap", Name+"-config").Object, "data", "config.yaml")
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(data), &cfg))
	return cfg
}

func TestFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		v := values()
		v.HighAvailability = ha
		objs, err := Objects(v)
		require.NoError(t, err)
		d := rendertest.MustFind(t, objs, "Deployment", Name)
		pc, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
		assert.Equal(t, "gardener-garden-system-200", pc, "Gardener's docs/development/priority-classes.md")
		replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		assert.Equal(t, map[bool]int64{false: 1, true: 2}[ha], replicas, "controllers: 1, 2 with HA (Gardener's docs/development/high-availability-of-components.md)")

		cfg := componentConfig(t, objs)
		assert.Equal(t, "info", cfg["logLevel"], "Gardener's GardenerControllerManagerConfig in docs/api-reference/operator.md")
		lifetime, _, _ := unstructured.NestedString(cfg, "controllers", "bastion", "maxLifetime")
		assert.Equal(t, "24h", lifetime, "Gardener's docs/concepts/controller-manager.md")
		_, hasEvent, _ := unstructured.NestedMap(cfg, "controllers", "event")
		assert.False(t, hasEvent, "the event controller is optional (Gardener's docs/concepts/controller-manager.md)")
		project, _, _ := unstructured.NestedMap(cfg, "controllers", "project")
		assert.Equal(t, map[string]any{"concurrentSyncs": float64(5), "minimumLifetimeDays": float64(30), "staleGracePeriodDays": float64(14), "staleExpirationTimeDays": float64(90), "staleSyncPeriod": "12h"}, project,
			"gardener-controller-manager's defaults (pkg/controllermanager/apis/config/v1alpha1/defaults.go at v1.120.0)")
	}
}

// The Backup Buckets Check reports Progressing before False only with a threshold (Gardener's
// docs/concepts/controller-manager.md).
func TestBackupBucketsConditionThreshold(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	_, has, _ := unstructured.NestedMap(componentConfig(t, objs), "controllers", "seedBackupBucketsCheck")
	assert.False(t, has, "no threshold: False at once")

	v := values()
	v.BackupBucketsConditionThreshold = "5m"
	objs, err = Objects(v)
	require.NoError(t, err)
	check, _, _ := unstructured.NestedMap(componentConfig(t, objs), "controllers", "seedBackupBucketsCheck")
	assert.Equal(t, map[string]any{"concurrentSyncs": float64(5), "conditionThresholds": []any{map[string]any{"type": "BackupBucketsReady", "duration": "5m"}}}, check)

	v.BackupBucketsConditionThreshold = "soon"
	_, err = Objects(v)
	assert.ErrorContains(t, err, `backup buckets condition threshold "soon" is not a positive duration`)
}

func TestProjectQuota(t *testing.T) {
	v := values()
	v.Quotas = []projectcontroller.Quota{{
		Hard: map[string]string{"count/shoots.core.gardener.cloud": "100"}, Labels: map[string]string{"team": "ops"}, ProjectSelector: map[string]string{"tier": "trial"},
	}}
	objs, err := Objects(v)
	require.NoError(t, err)
	quotas, _, _ := unstructured.NestedSlice(componentConfig(t, objs), "controllers", "project", "quotas")
	// QuotaConfiguration in pkg/controllermanager/apis/config/v1alpha1/types.go at v1.120.0
	assert.Equal(t, []any{map[string]any{
		"config": map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"labels": map[string]any{"team": "ops"}},
			"spec": map[string]any{"hard": map[string]any{"count/shoots.core.gardener.cloud": "100"}}},
		"projectSelector": map[string]any{"matchLabels": map[string]any{"tier": "trial"}},
	}}, quotas)
}

// The component publishes the settings its project controllers run with, for the projects'
// predictions.
func TestProjectControllerOutput(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "gcm", Config: config(map[string]cty.Value{
		"project_stale_expiration_time_days": cty.NumberIntVal(7),
		"project_quota": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
			"hard":             cty.MapVal(map[string]cty.Value{"count/secrets": cty.StringVal("10")}),
			"labels":           cty.NullVal(cty.Map(cty.String)),
			"annotations":      cty.NullVal(cty.Map(cty.String)),
			"project_selector": cty.MapVal(map[string]cty.Value{"tier": cty.StringVal("trial")}),
		})}),
	})})
	require.NoError(t, err)
	got := out.Outputs[projectcontroller.OutputName]
	assert.True(t, got.Type().Equals(projectcontroller.OutputType), "the declared output type")
	assert.Equal(t, "7", got.GetAttr("stale_expiration_time_days").AsBigFloat().String())
	assert.Equal(t, "12h", got.GetAttr("stale_sync_period").AsString())
	assert.Equal(t, "trial", got.GetAttr("quotas").Index(cty.NumberIntVal(0)).GetAttr("project_selector").Index(cty.StringVal("tier")).AsString())
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Values)
		error string
	}{
		{"ttl", func(v *Values) { v.EventTTL = "a day" }, `event ttl "a day" is not a positive duration`},
		{"days", func(v *Values) { v.StaleGracePeriodDays = -1 }, "project stale grace period days -1 is negative"},
		{"sync period", func(v *Values) { v.StaleSyncPeriod = "twice a day" }, `project stale sync period "twice a day" is not a positive duration`},
		{"quota", func(v *Values) { v.Quotas = []projectcontroller.Quota{{}} }, "project quota 1 has no hard limits"},
		{"image", func(v *Values) { v.Images = map[string]string{"gardener-controller-manager": "registry/only"} }, "has no tag"},
		{"log level", func(v *Values) { v.LogLevel = "trace" }, `log level "trace"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := values()
			tt.edit(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tt.error)
		})
	}
}

// Gardenlets bootstrapping with a token may request their client certificate, which the
// controller manager then approves (Gardener's docs/concepts/controller-manager.md).
func TestSeedBootstrapperRole(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	role := rendertest.MustFind(t, objs, "ClusterRole", SeedBootstrapperRole)
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	assert.Contains(t, fmt.Sprint(rules), "certificatesigningrequests/seedclient")
	binding := rendertest.MustFind(t, objs, "ClusterRoleBinding", SeedBootstrapperRole)
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	require.Len(t, subjects, 1)
	assert.Equal(t, "system:bootstrappers", subjects[0].(map[string]any)["name"])
	for _, o := range objs {
		if o.Object.GetName() == SeedBootstrapperRole {
			assert.Equal(t, "virtual", o.Cluster, "the role is in the virtual garden")
		}
	}
}

// The shoot loops' settings go into the configuration under Gardener's names, with Gardener's
// defaults (SetDefaults_ControllerManagerControllerConfiguration in
// pkg/controllermanager/apis/config/v1alpha1/defaults.go at v1.120.0).
func TestShootLoops(t *testing.T) {
	custom := values()
	custom.ShootHibernationTriggerDeadline, custom.ShootQuotaSyncPeriod = "10m", "5m"
	custom.ShootRetryPeriod, custom.ShootRetryJitterPeriod = "1m", "0s"
	custom.ShootMaintenanceRestartControlPlane, custom.ShootMaintenanceRestartCoreAddons = false, true
	for _, tc := range []struct {
		name string
		v    Values
		want map[string]any
	}{
		{"defaults", values(), map[string]any{
			"shootHibernation": map[string]any{"concurrentSyncs": float64(5), "triggerDeadlineDuration": "2h"},
			"shootMaintenance": map[string]any{"concurrentSyncs": float64(5), "enableShootControlPlaneRestarter": true, "enableShootCoreAddonRestarter": false},
			"shootQuota":       map[string]any{"concurrentSyncs": float64(5), "syncPeriod": "60m"},
			"shootRetry":       map[string]any{"concurrentSyncs": float64(5), "retryPeriod": "10m", "retryJitterPeriod": "5m"},
		}},
		{"set", custom, map[string]any{
			"shootHibernation": map[string]any{"concurrentSyncs": float64(5), "triggerDeadlineDuration": "10m"},
			"shootMaintenance": map[string]any{"concurrentSyncs": float64(5), "enableShootControlPlaneRestarter": false, "enableShootCoreAddonRestarter": true},
			"shootQuota":       map[string]any{"concurrentSyncs": float64(5), "syncPeriod": "5m"},
			"shootRetry":       map[string]any{"concurrentSyncs": float64(5), "retryPeriod": "1m", "retryJitterPeriod": "0s"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Objects(tc.v)
			require.NoError(t, err)
			controllers, _, _ := unstructured.NestedMap(componentConfig(t, objs), "controllers")
			for name, want := range tc.want {
				assert.Equal(t, want, controllers[name], name)
			}
			d, err := tc.v.ShootLoops().Durations()
			require.NoError(t, err)
			assert.Positive(t, d.RetryPeriod)
		})
	}
	bad := values()
	bad.ShootRetryPeriod = "soon"
	_, err := Objects(bad)
	assert.ErrorContains(t, err, `retry period "soon" is not a duration`)
}
