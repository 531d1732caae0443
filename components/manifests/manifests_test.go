package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
)

func config(objects, files cty.Value, namespace string) cty.Value {
	ns := cty.NullVal(cty.String)
	if namespace != "" {
		ns = cty.StringVal(namespace)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"cluster":   cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"objects":   objects,
		"files":     files,
		"namespace": ns,
	})
}

func TestRender(t *testing.T) {
	inline := cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
		"apiVersion": cty.StringVal("v1"),
		"kind":       cty.StringVal("Service"),
		"metadata":   cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("svc")}),
		"spec": cty.ObjectVal(map[string]cty.Value{"ports": cty.TupleVal([]cty.Value{
			cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80), "weight": cty.NumberFloatVal(0.5)}),
		})}),
	})})
	out, err := Type.RenderConfig(render.Input{Dir: "testdata", Config: config(inline, cty.ListVal([]cty.Value{cty.StringVal("objects.yaml")}), "apps")})
	require.NoError(t, err)
	require.Len(t, out.Objects, 3)
	names := []string{}
	for _, o := range out.Objects {
		assert.Equal(t, "runtime", o.Cluster)
		assert.Equal(t, "apps", o.DefaultNamespace)
		assert.Empty(t, o.Object.GetNamespace(), "the engine, not the renderer, decides on namespaces")
		names = append(names, o.Object.GetKind()+"/"+o.Object.GetName())
	}
	assert.Equal(t, []string{"Service/svc", "ConfigMap/from-file", "Deployment/web"}, names)
	ports := out.Objects[0].Object.Object["spec"].(map[string]any)["ports"].([]any)
	assert.Equal(t, int64(80), ports[0].(map[string]any)["port"], "whole numbers are int64")
	assert.Equal(t, 0.5, ports[0].(map[string]any)["weight"])
	replicas := out.Objects[2].Object.Object["spec"].(map[string]any)["replicas"]
	assert.Equal(t, int64(2), replicas, "numbers from YAML files are int64 too")
}

func TestRenderErrors(t *testing.T) {
	noName := cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"apiVersion": cty.StringVal("v1"), "kind": cty.StringVal("ConfigMap")})})
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"object without name", config(noName, cty.NullVal(cty.List(cty.String)), ""), "no apiVersion, kind or metadata.name"},
		{"objects not a list", config(cty.StringVal("x"), cty.NullVal(cty.List(cty.String)), ""), "must be a list of objects"},
		{"element not an object", config(cty.TupleVal([]cty.Value{cty.StringVal("x")}), cty.NullVal(cty.List(cty.String)), ""), "objects[0] is not an object"},
		{"missing file", config(cty.NullVal(cty.DynamicPseudoType), cty.ListVal([]cty.Value{cty.StringVal("nope.yaml")}), ""), "file nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Dir: "testdata", Config: tt.config})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
