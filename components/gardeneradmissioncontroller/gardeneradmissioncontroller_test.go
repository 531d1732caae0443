package gardeneradmissioncontroller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

func strings(s ...string) cty.Value {
	out := make([]cty.Value, len(s))
	for i, v := range s {
		out[i] = cty.StringVal(v)
	}
	return cty.ListVal(out)
}

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
	limit := func(group, resource string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{
			"api_groups": strings(group), "api_versions": strings("*"), "resources": strings(resource), "size": cty.StringVal("100k"),
		})
	}
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "gardener-admission-controller"}, map[string]cty.Value{
		"default": config(nil),
		"ha-customised": config(map[string]cty.Value{
			"high_availability":   cty.True,
			"log_level":           cty.StringVal("debug"),
			"resource_size_mode":  cty.StringVal("log"),
			"ca_bundle":           cty.StringVal("LS0tLS1CRUdJTg=="),
			"resource_size_limit": cty.ListVal([]cty.Value{limit("core.gardener.cloud", "shoots"), limit("", "secrets")}),
			"unrestricted_subject": cty.ListVal([]cty.Value{
				cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal("Group"), "name": cty.StringVal("gardener.cloud:system:seeds"), "namespace": cty.NullVal(cty.String)}),
				cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal("ServiceAccount"), "name": cty.StringVal("*"), "namespace": cty.StringVal("garden")}),
			}),
		}),
		"no-webhooks": config(map[string]cty.Value{"admission_webhooks": cty.False}),
	})
}

func webhookNames(t *testing.T, objs []render.Object) map[string]string {
	cfg := rendertest.MustFind(t, objs, "ValidatingWebhookConfiguration", Name)
	webhooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	out := map[string]string{}
	for _, w := range webhooks {
		url, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "url")
		out[w.(map[string]any)["name"].(string)] = url
	}
	return out
}

func TestWebhookHandlers(t *testing.T) {
	v := values()
	v.ResourceSizeLimits = []ResourceLimit{{APIGroups: []string{"core.gardener.cloud"}, APIVersions: []string{"*"}, Resources: []string{"shoots"}, Size: "100k"}}
	objs, err := Objects(v)
	require.NoError(t, err)
	// The handlers of Gardener's "Gardener Admission Controller"
	// docs/concepts/admission-controller.md, served by the Service in garden (Gardener's "Scoped API
	// Access for gardenlets and Extensions" docs/deployment/gardenlet_api_access.md).
	assert.Equal(t, map[string]string{
		"validate-authentication-configuration.gardener.cloud": "https://gardener-admission-controller.garden/webhooks/admission/authenticationconfiguration",
		"validate-authorization-configuration.gardener.cloud":  "https://gardener-admission-controller.garden/webhooks/admission/authorizationconfiguration",
		"validate-admission-plugin-secrets.gardener.cloud":     "https://gardener-admission-controller.garden/webhooks/admission/admissionpluginsecret",
		"validate-kubeconfig-secrets.gardener.cloud":           "https://gardener-admission-controller.garden/webhooks/validate-kubeconfig-secrets",
		"validate-namespace-deletion.gardener.cloud":           "https://gardener-admission-controller.garden/webhooks/validate-namespace-deletion",
		"validate-resource-size.gardener.cloud":                "https://gardener-admission-controller.garden/webhooks/validate-resource-size",
		"seed-restriction.gardener.cloud":                      "https://gardener-admission-controller.garden/webhooks/admission/seedrestriction",
	}, webhookNames(t, objs))

	v = values()
	v.SeedRestriction = false
	objs, err = Objects(v)
	require.NoError(t, err)
	names := webhookNames(t, objs)
	assert.NotContains(t, names, "seed-restriction.gardener.cloud")
	assert.NotContains(t, names, "validate-resource-size.gardener.cloud", "no limits, no size webhook")

	v = values()
	v.AdmissionWebhooks = false
	objs, err = Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		assert.NotEqual(t, "ValidatingWebhookConfiguration", o.Object.GetKind())
	}
}

func TestDeploymentFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		v := values()
		v.HighAvailability = ha
		objs, err := Objects(v)
		require.NoError(t, err)
		d := rendertest.MustFind(t, objs, "Deployment", Name)
		pc, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
		assert.Equal(t, "gardener-garden-system-400", pc, "Gardener's docs/development/priority-classes.md")
		replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		assert.Equal(t, int64(2), replicas, "servers run 2 replicas (Gardener's docs/concepts/resource-manager.md)")
		sum, _, _ := unstructured.NestedString(d.Object, "spec", "template", "metadata", "annotations", "checksum/config")
		assert.Len(t, sum, 64)

		cm := rendertest.MustFind(t, objs, "ConfigMap", Name+"-config")
		data, _, _ := unstructured.NestedString(cm.Object, "data", "config.yaml")
		assert.Contains(t, data, "logLevel: info", "Gardener's GardenerAdmissionControllerConfig in docs/api-reference/operator.md")
		assert.Contains(t, data, "port: 2723", "Gardener's docs/monitoring/profiling.md")
	}
}

func TestResourceSizeConfiguration(t *testing.T) {
	v := values()
	v.ResourceSizeLimits = []ResourceLimit{{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}, Size: "100k"}}
	objs, err := Objects(v)
	require.NoError(t, err)
	data, _, _ := unstructured.NestedString(rendertest.MustFind(t, objs, "ConfigMap", Name+"-config").Object, "data", "config.yaml")
	assert.Contains(t, data, "operationMode: block", "Gardener's ResourceAdmissionConfiguration in docs/api-reference/operator.md")
	assert.Contains(t, data, "name: gardener.cloud:system:seeds", "Gardener's docs/concepts/admission-controller.md")
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Values)
		error string
	}{
		{"mode", func(v *Values) { v.ResourceSizeMode = "warn" }, `resource size mode "warn" is not one of block, log`},
		{"size", func(v *Values) {
			v.ResourceSizeLimits = []ResourceLimit{{APIVersions: []string{"*"}, Resources: []string{"shoots"}, Size: "big"}}
		}, `resource size limit 1: size "big"`},
		{"resources", func(v *Values) { v.ResourceSizeLimits = []ResourceLimit{{APIVersions: []string{"*"}, Size: "1k"}} }, "resource size limit 1 names no resources"},
		{"subject", func(v *Values) { v.UnrestrictedSubjects = []Subject{{Kind: "ServiceAccount", Name: "x"}} }, "a ServiceAccount needs a namespace"},
		{"log level", func(v *Values) { v.LogLevel = "warn" }, `log level "warn"`},
		{"cluster", func(v *Values) { v.Cluster.Name = "" }, "gardener-admission-controller: cluster is not set"},
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
