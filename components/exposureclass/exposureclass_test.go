package exposureclass

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

var cluster = decode.Cluster{Name: "virtual"}

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "internet"}, map[string]string{
		"minimal": `{"cluster": {"name": "virtual"}, "handler": "internet-config"}`,
		"scheduled": `{"cluster": {"name": "virtual"}, "name": "internal", "handler": "internal-config",
			"seed_selector": {"network": "internal"}, "seed_provider_types": ["gcp", "aws"],
			"tolerations": [{"key": "dedicated", "value": "internal"}, {"key": "private"}]}`,
	})
}

func TestFacts(t *testing.T) {
	objs, err := Objects(Values{Cluster: cluster, Name: "abc", Handler: "abc", SeedSelector: map[string]string{"network": "internal"}})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	u := objs[0].Object
	assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
	assert.Equal(t, "ExposureClass", u.GetKind())
	assert.Empty(t, u.GetNamespace(), "ExposureClass is cluster-scoped")
	// Gardener's "ExposureClasses" docs/usage/networking/exposureclasses.md: handler and scheduling
	// are top-level fields, there is no spec.
	assert.Equal(t, "abc", u.Object["handler"])
	assert.Equal(t, map[string]any{"seedSelector": map[string]any{"matchLabels": map[string]any{"network": "internal"}}}, u.Object["scheduling"])
	assert.NotContains(t, u.Object, "spec")
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "internet", Config: rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "virtual"}, "handler": "h"}`)})
	require.NoError(t, err)
	assert.Equal(t, "internet", out.Outputs["name"].AsString())
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"no handler", Values{Name: "e"}, "handler is required"},
		{"bad name", Values{Name: "E!", Handler: "h"}, `exposure class name "E!" is invalid`},
		{"toleration without key", Values{Name: "e", Handler: "h", Tolerations: []Toleration{{Value: "x"}}}, "toleration without a key"},
		{"toleration twice", Values{Name: "e", Handler: "h", Tolerations: []Toleration{{Key: "a"}, {Key: "a"}}}, "toleration a= is given twice"},
		{"provider type twice", Values{Name: "e", Handler: "h", SeedProviderTypes: []string{"aws", "aws"}}, "seed provider type aws is given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
