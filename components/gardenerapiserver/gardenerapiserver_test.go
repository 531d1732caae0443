package gardenerapiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster":          rendertest.Cluster("runtime"),
	"virtual_cluster":  rendertest.Cluster("virtual"),
	"cluster_identity": cty.StringVal("landscape-dev"),
}).AsValueMap()

// config is a configuration as the loader passes it, with extra attributes on top of the minimum.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func values() Values {
	v := Type.Defaults()
	v.Cluster, v.VirtualCluster = decode.Cluster{Name: "runtime"}, decode.Cluster{Name: "virtual"}
	v.ClusterIdentity = "landscape-dev"
	return v
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]cty.Value
	}{
		{"default", nil},
		{"ha-customised", map[string]cty.Value{
			"high_availability":            cty.True,
			"log_level":                    cty.StringVal("debug"),
			"feature_gates":                cty.MapVal(map[string]cty.Value{"ShootCredentialsBinding": cty.True, "NewVPN": cty.False}),
			"images":                       cty.MapVal(map[string]cty.Value{"gardener-apiserver": cty.StringVal("v1.121.0")}),
			"encrypted_resources":          cty.ListVal([]cty.Value{cty.StringVal("shoots.core.gardener.cloud"), cty.StringVal("internalsecrets.core.gardener.cloud")}),
			"audit_policy_config_map_name": cty.StringVal("gardener-apiserver-audit-policy"),
			"default_watch_cache_size":     cty.NumberIntVal(0),
			"ca_bundle":                    cty.StringVal("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			"runtime_service_address":      cty.StringVal("10.0.12.34"),
			"etcd_endpoint":                cty.StringVal("https://etcd.example:2379"),
		}},
		{"unregistered", map[string]cty.Value{"register_api_services": cty.False}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Name: "gardener-apiserver", Config: config(tt.extra)})
			require.NoError(t, err)
			golden.Assert(t, tt.name, out.Objects)
			assert.Equal(t, cty.StringVal("gardener-apiserver"), out.Outputs["service_name"])
		})
	}
}

func kinds(objs []render.Object, cluster, kind string) []string {
	var out []string
	for _, o := range objs {
		if o.Cluster == cluster && o.Object.GetKind() == kind {
			out = append(out, o.Object.GetName())
		}
	}
	return out
}

func TestAPIServicesOnlyWhenRegistering(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	// The API groups of the API reference (Gardener's "Core" docs/api-reference/core.md, "Core V1"
	// docs/api-reference/core-v1.md, "Operations" docs/api-reference/operations.md, "Security"
	// docs/api-reference/security.md, "Seedmanagement" docs/api-reference/seedmanagement.md,
	// "Settings" docs/api-reference/settings.md).
	assert.ElementsMatch(t, []string{
		"v1beta1.core.gardener.cloud", "v1.core.gardener.cloud", "v1alpha1.operations.gardener.cloud",
		"v1alpha1.security.gardener.cloud", "v1alpha1.seedmanagement.gardener.cloud", "v1alpha1.settings.gardener.cloud",
	}, kinds(objs, "virtual", "APIService"))
	svc := rendertest.MustFind(t, objs, "APIService", "v1beta1.core.gardener.cloud")
	ref, _, _ := unstructured.NestedMap(svc.Object, "spec", "service")
	assert.Equal(t, map[string]any{"namespace": "kube-system", "name": "gardener-apiserver", "port": int64(443)}, ref)
	_, hasCA, _ := unstructured.NestedString(svc.Object, "spec", "caBundle")
	assert.False(t, hasCA, "an empty CA bundle is omitted")
	assert.Equal(t, []string{"gardener-apiserver"}, kinds(objs, "virtual", "Service"), "Gardener's docs/concepts/operator.md")

	v := values()
	v.RegisterAPIServices = false
	objs, err = Objects(v)
	require.NoError(t, err)
	assert.Empty(t, kinds(objs, "virtual", "APIService"))
	assert.Empty(t, kinds(objs, "virtual", "Service"))
	assert.NotEmpty(t, kinds(objs, "virtual", "ClusterRoleBinding"), "RBAC stays")
}

func TestAlwaysEncryptedResources(t *testing.T) {
	got, err := EncryptedResources([]string{"shoots.core.gardener.cloud", "shootstates.core.gardener.cloud"})
	require.NoError(t, err)
	// Gardener's docs/concepts/operator.md
	assert.Equal(t, []string{
		"controllerdeployments.core.gardener.cloud",
		"controllerregistrations.core.gardener.cloud",
		"internalsecrets.core.gardener.cloud",
		"shoots.core.gardener.cloud",
		"shootstates.core.gardener.cloud",
	}, got)
}

func TestDeploymentFacts(t *testing.T) {
	objs, err := Objects(values())
	require.NoError(t, err)
	d := rendertest.MustFind(t, objs, "Deployment", "gardener-apiserver")
	assert.Equal(t, "garden", d.GetNamespace())
	pc, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
	assert.Equal(t, "gardener-garden-system-500", pc, "Gardener's docs/development/priority-classes.md")
	_, hasReplicas, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	assert.False(t, hasReplicas, "the HPA owns the replicas")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	args := containers[0].(map[string]any)["args"]
	assert.Contains(t, args, "--log-level=info", "Gardener's GardenerDashboardConfig in docs/api-reference/operator.md")
	assert.Contains(t, args, "--etcd-servers=https://virtual-garden-etcd-main-client.garden.svc:2379", "Gardener's docs/operations/topology_aware_routing.md")
	assert.Contains(t, args, "--cluster-identity=landscape-dev")

	svc := rendertest.MustFind(t, objs, "Service", "gardener-apiserver")
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	assert.Equal(t, int64(443), ports[0].(map[string]any)["port"])

	for _, ha := range []bool{false, true} {
		v := values()
		v.HighAvailability = ha
		objs, err := Objects(v)
		require.NoError(t, err)
		hpa := rendertest.MustFind(t, objs, "HorizontalPodAutoscaler", "gardener-apiserver")
		lo, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "minReplicas")
		hi, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "maxReplicas")
		// Gardener's "Autoscaling Specifics for Components"
		// docs/development/autoscaling-specifics-for-components.md: min 2, 3 with HA, max 6.
		assert.Equal(t, map[bool]int64{false: 2, true: 3}[ha], lo)
		assert.Equal(t, int64(6), hi)
	}
}

func TestVirtualServiceForAnIPAddress(t *testing.T) {
	v := values()
	v.RuntimeServiceAddress = "fd00::12"
	objs, err := Objects(v)
	require.NoError(t, err)
	assert.Equal(t, []string{"gardener-apiserver"}, kinds(objs, "virtual", "Endpoints"))
	slice := rendertest.MustFind(t, objs, "EndpointSlice", "gardener-apiserver")
	assert.Equal(t, "IPv6", slice.Object["addressType"])
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Values)
		error string
	}{
		{"no identity", func(v *Values) { v.ClusterIdentity = "" }, "gardener-apiserver: cluster identity is not set"},
		{"log level", func(v *Values) { v.LogLevel = "trace" }, `log level "trace" is not one of info, debug, error`},
		{"no virtual cluster", func(v *Values) { v.VirtualCluster.Name = "" }, "virtual cluster is not set"},
		{"image", func(v *Values) { v.Images = map[string]string{"gardener-apiservr": "v1"} }, `image "gardener-apiservr" is not in the image vector`},
		{"resource", func(v *Values) { v.EncryptedResources = []string{"shoots"} }, `encrypted resource "shoots" is not of the form <plural>.<group>`},
		{"watch cache", func(v *Values) { n := -1; v.DefaultWatchCacheSize = &n }, "default watch cache size -1 is negative"},
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

func TestUnknownAttribute(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: config(map[string]cty.Value{"replicas": cty.NumberIntVal(2)})})
	assert.ErrorContains(t, err, "replicas")
}
