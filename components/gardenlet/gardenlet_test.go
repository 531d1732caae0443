package gardenlet

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

const testPEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func seedSpec() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"provider": cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal("local"), "region": cty.StringVal("local")}),
		"networks": cty.ObjectVal(map[string]cty.Value{
			"nodes": cty.StringVal("172.18.0.0/16"), "pods": cty.StringVal("10.1.0.0/16"), "services": cty.StringVal("10.2.0.0/16"),
		}),
		"ingress": cty.ObjectVal(map[string]cty.Value{
			"domain":     cty.StringVal("ingress.local.seed.local.gardener.cloud"),
			"controller": cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal("nginx")}),
		}),
	})
}

// defaults are the schema's defaults plus the required attributes, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":              rendertest.Cluster("seed"),
	"seed_name":            cty.StringVal("local"),
	"seed_spec":            seedSpec(),
	"bootstrap_kubeconfig": cty.StringVal("apiVersion: v1\nkind: Config\n"),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "gardenlet"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"ha-customised": rendertest.Config(defaults, map[string]cty.Value{
			"high_availability":      cty.True,
			"seed_labels":            cty.MapVal(map[string]cty.Value{"base": cty.StringVal("kind")}),
			"garden_cluster_address": cty.StringVal("https://api.virtual-garden.example.com"),
			"garden_ca_bundle":       cty.StringVal(testPEM),
			"bootstrap_kubeconfig":   cty.NullVal(cty.String),
			"feature_gates":          cty.MapVal(map[string]cty.Value{"DefaultSeccompProfile": cty.True, "ShootManagedIssuer": cty.False}),
			"log_level":              cty.StringVal("debug"),
			"images":                 cty.MapVal(map[string]cty.Value{"gardenlet": cty.StringVal("v1.121.0")}),
			"controllers": cty.ObjectVal(map[string]cty.Value{
				"shoot":      cty.ObjectVal(map[string]cty.Value{"reconcileInMaintenanceOnly": cty.True, "syncPeriod": cty.StringVal("1h")}),
				"shootState": cty.ObjectVal(map[string]cty.Value{"concurrentSyncs": cty.NumberIntVal(0)}),
			}),
		}),
	})
}

func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		Cluster:             decode.Cluster{Name: "seed"},
		SeedName:            "local",
		SeedSpec:            map[string]any{"provider": map[string]any{"type": "local"}},
		BootstrapKubeconfig: "apiVersion: v1\nkind: Config\n",
	})
}

func typed[T any](t *testing.T, objs []render.Object, kind, name string) T {
	t.Helper()
	var out T
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, kind, name).Object, &out))
	return out
}

func configOf(t *testing.T, objs []render.Object) map[string]any {
	t.Helper()
	cm := typed[corev1.ConfigMap](t, objs, "ConfigMap", ConfigMapName)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data[ConfigKey]), &cfg))
	return cfg
}

func TestDocumentedFacts(t *testing.T) {
	for _, tt := range []struct {
		ha       bool
		replicas int32
	}{
		// replicaCount 1 by default, 2 for HA (Gardener's "Deploy Gardenlet Manually"
		// docs/deployment/deploy_gardenlet_manually.md).
		{false, 1},
		{true, 2},
	} {
		v := minimal()
		v.HighAvailability = tt.ha
		objs, err := Objects(v)
		require.NoError(t, err)
		// Gardener's docs/deployment/deploy_gardenlet_manually.md: ServiceAccount gardenlet, RBAC, the
		// bootstrap Secret and the Deployment in the garden namespace.
		rendertest.MustFind(t, objs, "ServiceAccount", "gardenlet")
		d := typed[appsv1.Deployment](t, objs, "Deployment", "gardenlet")
		assert.Equal(t, "garden", d.Namespace)
		assert.Equal(t, tt.replicas, *d.Spec.Replicas)
		// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-system-critical.
		assert.Equal(t, "gardener-system-critical", d.Spec.Template.Spec.PriorityClassName)
		assert.Equal(t, "gardenlet", d.Spec.Template.Spec.ServiceAccountName)
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/gardenlet:v1.120.0", c.Image)
		// Gardener's "gardenlet" docs/concepts/gardenlet.md: /healthz is the liveness probe.
		assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
		assert.NotEmpty(t, d.Spec.Template.Annotations["checksum/configmap-gardenlet-config"])
		for k, val := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, val, d.Spec.Template.Labels[k], k)
		}
		assert.Equal(t, tt.ha, rendertest.Find(objs, "PodDisruptionBudget", "gardenlet") != nil)

		// Gardener's docs/deployment/deploy_gardenlet_manually.md: full admin rights.
		cr := typed[rbacv1.ClusterRole](t, objs, "ClusterRole", ClusterRoleName)
		assert.Equal(t, []string{"*"}, cr.Rules[0].Verbs)
		rendertest.MustFind(t, objs, "RoleBinding", ClusterRoleName+":leader-election")

		s := typed[corev1.Secret](t, objs, "Secret", "gardenlet-bootstrap-kubeconfig")
		assert.Equal(t, v.BootstrapKubeconfig, s.StringData["kubeconfig"])

		cfg := configOf(t, objs)
		assert.Equal(t, "gardenlet.config.gardener.cloud/v1alpha1", cfg["apiVersion"])
		assert.Equal(t, "GardenletConfiguration", cfg["kind"])
		client := cfg["gardenClientConnection"].(map[string]any)
		// Gardener's docs/deployment/deploy_gardenlet_manually.md-19224: the Secrets gardenlet reads and
		// writes.
		assert.Equal(t, map[string]any{"name": "gardenlet-kubeconfig", "namespace": "garden"}, client["kubeconfigSecret"])
		assert.Equal(t, map[string]any{"name": "gardenlet-bootstrap-kubeconfig", "namespace": "garden"}, client["bootstrapKubeconfig"])
		seed := cfg["seedConfig"].(map[string]any)
		assert.Equal(t, "local", seed["metadata"].(map[string]any)["name"])
		assert.Equal(t, v.SeedSpec, seed["spec"])
	}
}

func TestWithoutBootstrapKubeconfig(t *testing.T) {
	v := minimal()
	v.BootstrapKubeconfig = ""
	objs, err := Objects(v)
	require.NoError(t, err)
	assert.Nil(t, rendertest.Find(objs, "Secret", BootstrapKubeconfigSecretName))
	assert.NotContains(t, configOf(t, objs)["gardenClientConnection"], "bootstrapKubeconfig")
}

func TestGardenCABundle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{testPEM, base64.StdEncoding.EncodeToString([]byte(testPEM))},
		{render.GeneratedRef("garden", "ca", "ca.crt", true), render.GeneratedRef("garden", "ca", "ca.crt", true)},
		{render.UnknownString, render.UnknownString},
	} {
		v := minimal()
		v.GardenCABundle = tt.in
		objs, err := Objects(v)
		require.NoError(t, err)
		assert.Equal(t, tt.want, configOf(t, objs)["gardenClientConnection"].(map[string]any)["gardenClusterCACert"])
	}
}

func TestNoSecretValuesOutsideSecrets(t *testing.T) {
	v := minimal()
	v.BootstrapKubeconfig = "token: very-secret-bootstrap-token"
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == "Secret" {
			continue
		}
		raw, err := yaml.Marshal(o.Object.Object)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "very-secret-bootstrap-token", o.Object.GetKind())
	}
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no seed name":  func(v *Values) { v.SeedName = "" },
		"bad seed name": func(v *Values) { v.SeedName = "Local_Seed" },
		"no seed spec":  func(v *Values) { v.SeedSpec = nil },
		"bad namespace": func(v *Values) { v.Namespace = "Garden" },
		"bad log level": func(v *Values) { v.LogLevel = "trace" },
		"unknown image": func(v *Values) { v.Images = map[string]string{"gardenlett": "v1"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
	_, err := Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"replica_count": cty.NumberIntVal(2)})})
	assert.Error(t, err)
}
