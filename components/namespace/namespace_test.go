package namespace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func config(name string, labels, annotations map[string]string) cty.Value {
	toMap := func(m map[string]string) cty.Value {
		if m == nil {
			return cty.NullVal(cty.Map(cty.String))
		}
		vals := map[string]cty.Value{}
		for k, v := range m {
			vals[k] = cty.StringVal(v)
		}
		return cty.MapVal(vals)
	}
	n := cty.NullVal(cty.String)
	if name != "" {
		n = cty.StringVal(name)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"cluster":     cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"name":        n,
		"labels":      toMap(labels),
		"annotations": toMap(annotations),
	})
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		golden string
		in     render.Input
	}{
		{"default", render.Input{Name: "istio_system", Config: config("", nil, nil)}},
		{"garden", render.Input{Name: "garden", Config: config("garden", map[string]string{
			// Gardener's "High Availability Of Components"
			// docs/development/high-availability-of-components.md: the high-availability-config webhook only
			// considers namespaces with this label.
			"high-availability-config.resources.gardener.cloud/consider": "true",
			"gardener.cloud/role": "garden",
		}, map[string]string{"high-availability-config.resources.gardener.cloud/zones": "a,b,c"})}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, err := Type.RenderConfig(tt.in)
			require.NoError(t, err)
			golden.Assert(t, tt.golden, out.Objects)
		})
	}
}

func TestNameDefaultsToInstanceName(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "virtual_garden_istio_ingress", Config: config("", nil, nil)})
	require.NoError(t, err)
	require.Len(t, out.Objects, 1)
	assert.Equal(t, "Namespace", out.Objects[0].Object.GetKind())
	assert.Equal(t, "virtual-garden-istio-ingress", out.Objects[0].Object.GetName())
	assert.Empty(t, out.Objects[0].Object.GetNamespace())
	assert.Equal(t, "runtime", out.Objects[0].Cluster)
	assert.Equal(t, cty.StringVal("virtual-garden-istio-ingress"), out.Outputs["name"])
}

func TestExplicitNameWins(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "ns", Config: config("garden", nil, nil)})
	require.NoError(t, err)
	assert.Equal(t, "garden", out.Objects[0].Object.GetName())
	assert.Equal(t, cty.StringVal("garden"), out.Outputs["name"])
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		values Values
		err    string
	}{
		{"empty name", Values{}, "namespace name is empty"},
		{"invalid name", Values{Name: "Garden"}, `namespace name "Garden" is invalid`},
		{"invalid label key", Values{Name: "garden", Labels: map[string]string{"a b": "x"}}, `namespace garden: label key "a b" is invalid`},
		{"invalid label value", Values{Name: "garden", Labels: map[string]string{"a": "x y"}}, `namespace garden: value of label "a" is invalid`},
		{"invalid annotation key", Values{Name: "garden", Annotations: map[string]string{"-a": "x"}}, `namespace garden: annotation key "-a" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.values)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestNullConfig(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: cty.NullVal(cty.DynamicPseudoType)})
	assert.ErrorContains(t, err, "configuration is null")
}
