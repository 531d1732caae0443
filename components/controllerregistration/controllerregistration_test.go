package controllerregistration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

var cluster = decode.Cluster{Name: "virtual"}

// resource is a resource block with its defaults and what r sets.
func resource(r Resource) Resource { return rendertest.Overlay(ResourceDefaults(), r) }

func ptr[T any](v T) *T { return &v }

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "os-gardenlinux"}, map[string]string{
		// Gardener's "ControllerRegistration" docs/extensions/registration.md: the os-gardenlinux
		// example.
		"minimal": `{"cluster": {"name": "virtual"}, "controller_deployment": "os-gardenlinux",
			"resource": [{"kind": "OperatingSystemConfig", "type": "gardenlinux"}]}`,
		// Gardener's docs/extensions/registration.md: the extension-foo example, with a secondary
		// controller's seed selector.
		"extension": `{"cluster": {"name": "virtual"}, "name": "extension-foo", "controller_deployment": "extension-foo",
			"policy": "AlwaysExceptNoShoots", "seed_selector": {"foo.example.com/enabled": "true"}, "pod_security_enforce": "restricted",
			"resource": [{"kind": "Extension", "type": "foo", "primary": false, "globally_enabled": true, "reconcile_timeout": "30s",
				"workerless_supported": true,
				"lifecycle": {"reconcile": "AfterKubeAPIServer", "delete": "BeforeKubeAPIServer", "migrate": "BeforeKubeAPIServer"}}]}`,
	})
}

func TestDefaults(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: cluster, Name: "r", ControllerDeployment: "d", Resources: []Resource{resource(Resource{Kind: "Infrastructure", Type: "aws"})}}))
	require.NoError(t, err)
	u := objs[0].Object
	assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
	assert.Equal(t, "ControllerRegistration", u.GetKind())
	assert.Empty(t, u.GetNamespace(), "ControllerRegistration is cluster-scoped")
	spec := u.Object["spec"].(map[string]any)
	// Gardener's ControllerResource in docs/api-reference/core.md: primary defaults to true;
	// Gardener's docs/extensions/registration.md: policy defaults to OnDemand.
	assert.Equal(t, []any{map[string]any{"kind": "Infrastructure", "type": "aws", "primary": true}}, spec["resources"])
	assert.Equal(t, map[string]any{"policy": "OnDemand", "deploymentRefs": []any{map[string]any{"name": "d"}}}, spec["deployment"])
}

func TestPolicies(t *testing.T) {
	for _, p := range []string{"OnDemand", "Always", "AlwaysExceptNoShoots"} {
		objs, err := Objects(values(Values{Cluster: cluster, Name: "r", Policy: p, Resources: []Resource{resource(Resource{Kind: "Extension", Type: "x"})}}))
		require.NoError(t, err, p)
		assert.Equal(t, p, objs[0].Object.Object["spec"].(map[string]any)["deployment"].(map[string]any)["policy"])
	}
	_, err := Objects(values(Values{Cluster: cluster, Name: "r", Policy: "Never", Resources: []Resource{resource(Resource{Kind: "Extension", Type: "x"})}}))
	assert.ErrorContains(t, err, `policy "Never" is not one of OnDemand, Always, AlwaysExceptNoShoots`)
}

func TestReconcileTimeoutIsCanonical(t *testing.T) {
	objs, err := Objects(values(Values{Cluster: cluster, Name: "r", Resources: []Resource{resource(Resource{Kind: "Extension", Type: "x", ReconcileTimeout: "180s"})}}))
	require.NoError(t, err)
	res := objs[0].Object.Object["spec"].(map[string]any)["resources"].([]any)[0].(map[string]any)
	assert.Equal(t, "3m0s", res["reconcileTimeout"])
}

func TestErrors(t *testing.T) {
	ext := func(r Resource) []Resource { r = resource(r); r.Kind, r.Type = "Extension", "x"; return []Resource{r} }
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"no resources", values(Values{}), "at least one resource is required"},
		{"resource without type", values(Values{Resources: []Resource{resource(Resource{Kind: "Extension"})}}), "a resource needs a kind and a type"},
		{"resource twice", values(Values{Resources: []Resource{resource(Resource{Kind: "Extension", Type: "x"}), resource(Resource{Kind: "Extension", Type: "x"})}}), "resource Extension/x is given twice"},
		{"globally enabled infrastructure", values(Values{Resources: []Resource{resource(Resource{Kind: "Infrastructure", Type: "aws", GloballyEnabled: ptr(true)})}}), "only for kind Extension"},
		{"lifecycle for a worker", values(Values{Resources: []Resource{resource(Resource{Kind: "Worker", Type: "aws", Lifecycle: &Lifecycle{Reconcile: AfterWorker}})}}), "only for kind Extension"},
		{"bad lifecycle", values(Values{Resources: ext(Resource{Lifecycle: &Lifecycle{Delete: "Later"}})}), `lifecycle delete "Later" is not one of BeforeKubeAPIServer, AfterKubeAPIServer, AfterWorker`},
		{"bad timeout", values(Values{Resources: ext(Resource{ReconcileTimeout: "soon"})}), `reconcile timeout "soon" is not a positive duration`},
		{"seed selector for a primary", values(Values{SeedSelector: map[string]string{"a": "b"}, Resources: ext(Resource{})}), "only allowed when every resource has primary = false"},
		{"bad pod security level", values(Values{PodSecurityEnforce: "strict", Resources: ext(Resource{})}), `pod security level "strict"`},
		{"bad name", values(Values{Name: "R", Resources: ext(Resource{})}), `controller registration name "R" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.v.Name == "" {
				tt.v.Name = "r"
			}
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "provider-local", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "resource": [{"kind": "Infrastructure", "type": "local"}]}`)})
	require.NoError(t, err)
	assert.Equal(t, "provider-local", out.Outputs["name"].AsString())
}
