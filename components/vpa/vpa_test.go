package vpa

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": rendertest.Cluster("runtime")}).AsValueMap()

// config is a configuration as the engine passes it: schema defaults filled in, extra
// attributes overriding them.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func render1(t *testing.T, extra map[string]cty.Value) []render.Object {
	t.Helper()
	out, err := Type.RenderConfig(render.Input{Name: "vpa", Config: config(extra)})
	require.NoError(t, err)
	return out.Objects
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "vpa"}, map[string]cty.Value{
		"default": config(nil),
		"high-availability": config(map[string]cty.Value{
			"namespace":         cty.StringVal("vpa"),
			"high_availability": cty.True,
			"ca_bundle":         cty.StringVal(testCA),
			"tls_secret_name":   cty.StringVal("vpa-tls"),
			"images":            cty.MapVal(map[string]cty.Value{"vpa-recommender": cty.StringVal("mirror.example.com/vpa-recommender:1.4.0")}),
		}),
	})
}

func TestDeploymentsFollowTheDocuments(t *testing.T) {
	tests := []struct {
		name     string
		ha       bool
		replicas int64
	}{
		{"without HA one replica", false, 1},
		// Controllers and (webhook) servers run with 2 replicas (Gardener's "High Availability Of
		// Components" docs/development/high-availability-of-components.md).
		{"with HA two replicas", true, 2},
	}
	// Priority classes of the garden runtime cluster (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	classes := map[string]string{
		"vpa-admission-controller": "gardener-garden-system-300",
		"vpa-recommender":          "gardener-garden-system-200",
		"vpa-updater":              "gardener-garden-system-200",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := render1(t, map[string]cty.Value{"high_availability": cty.BoolVal(tt.ha)})
			for name, class := range classes {
				d := rendertest.Find(objs, "Deployment", name)
				require.NotNil(t, d, name)
				// The components live in the garden namespace (Gardener's "Gardener Operator"
				// docs/concepts/operator.md).
				assert.Equal(t, "garden", d.GetNamespace())
				got, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "priorityClassName")
				assert.Equal(t, class, got, name)
				n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
				assert.Equal(t, tt.replicas, n, name)
				assert.Equal(t, tt.ha, rendertest.Find(objs, "PodDisruptionBudget", name) != nil, name)
				sel, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
				labels, _, _ := unstructured.NestedStringMap(d.Object, "spec", "template", "metadata", "labels")
				assert.Equal(t, sel, labels)
			}
		})
	}
}

func TestWebhook(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"ca_bundle": cty.StringVal(testCA)})

	svc := rendertest.Find(objs, "Service", "vpa-webhook")
	require.NotNil(t, svc)
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	require.Len(t, ports, 1)
	assert.EqualValues(t, 443, ports[0].(map[string]any)["port"])
	assert.EqualValues(t, 10250, ports[0].(map[string]any)["targetPort"])

	cfg := rendertest.Find(objs, "MutatingWebhookConfiguration", "vpa-webhook-config")
	require.NotNil(t, cfg)
	webhooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	require.Len(t, webhooks, 1)
	wh := webhooks[0].(map[string]any)
	assert.Equal(t, "Ignore", wh["failurePolicy"])
	ca, _, _ := unstructured.NestedString(wh, "clientConfig", "caBundle")
	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte(testCA)), ca)
	name, _, _ := unstructured.NestedString(wh, "clientConfig", "service", "name")
	assert.Equal(t, "vpa-webhook", name)

	d := rendertest.Find(objs, "Deployment", "vpa-admission-controller")
	secret, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "volumes")
	require.Len(t, secret, 1)
	got, _, _ := unstructured.NestedString(secret[0].(map[string]any), "secret", "secretName")
	assert.Equal(t, "vpa-admission-controller-server", got)
}

func TestCABundle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"pem is encoded", testCA, base64.StdEncoding.EncodeToString([]byte(testCA))},
		{"base64 is kept", "Zm9v", "Zm9v"},
		{"a marker is kept", render.GeneratedRef("garden", "ca", "ca.crt", true), render.GeneratedRef("garden", "ca", "ca.crt", true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, caBundle(tt.in))
		})
	}
}

func TestWebhooksOff(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"admission_webhooks": cty.False})
	assert.Nil(t, rendertest.Find(objs, "MutatingWebhookConfiguration", "vpa-webhook-config"))
	assert.NotNil(t, rendertest.Find(objs, "Deployment", "vpa-admission-controller"))
}

func TestCRDsAndRBAC(t *testing.T) {
	objs := render1(t, nil)
	for _, name := range []string{"verticalpodautoscalers.autoscaling.k8s.io", "verticalpodautoscalercheckpoints.autoscaling.k8s.io"} {
		assert.NotNil(t, rendertest.Find(objs, "CustomResourceDefinition", name), name)
	}
	for _, c := range []string{"vpa-admission-controller", "vpa-recommender", "vpa-updater"} {
		assert.NotNil(t, rendertest.Find(objs, "ServiceAccount", c), c)
		assert.NotNil(t, rendertest.Find(objs, "ClusterRole", "gardener.cloud:vpa:"+c), c)
		assert.NotNil(t, rendertest.Find(objs, "ClusterRoleBinding", "gardener.cloud:vpa:"+c), c)
	}
	for _, c := range []string{"vpa-recommender", "vpa-updater"} {
		assert.NotNil(t, rendertest.Find(objs, "Role", c+"-leader-election"), c)
		assert.NotNil(t, rendertest.Find(objs, "RoleBinding", c+"-leader-election"), c)
	}
}

func TestObjectsWithTheDefaults(t *testing.T) {
	objs, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}}))
	require.NoError(t, err)
	d := rendertest.Find(objs, "Deployment", "vpa-recommender")
	require.NotNil(t, d)
	assert.Equal(t, "garden", d.GetNamespace())
	assert.NotNil(t, rendertest.Find(objs, "MutatingWebhookConfiguration", "vpa-webhook-config"), "webhooks default to on")
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"unknown image", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"vpa-nothing": cty.StringVal("1.0")})}), `image "vpa-nothing" is not in the image vector`},
		{"image without tag", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"vpa-updater": cty.StringVal("mirror.example.com/vpa")})}), "has no tag"},
		{"unknown attribute", cty.ObjectVal(map[string]cty.Value{"replicas": cty.NumberIntVal(3)}), "unknown field"},
		{"no cluster", cty.ObjectVal(map[string]cty.Value{"namespace": cty.StringVal("garden")}), "cluster is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Config: tt.config})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
