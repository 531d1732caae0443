package decode

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

type values struct {
	Cluster  Cluster           `json:"cluster"`
	Replicas int               `json:"replicas"`
	Labels   map[string]string `json:"labels"`
	Optional string            `json:"optional"`
}

func TestInto(t *testing.T) {
	cfg := cty.ObjectVal(map[string]cty.Value{
		"cluster":  cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime"), "context": cty.StringVal("kind"), "kubeconfig": cty.NullVal(cty.String)}),
		"replicas": cty.NumberIntVal(3),
		"labels":   cty.MapVal(map[string]cty.Value{"a": cty.StringVal("b")}),
		"optional": cty.NullVal(cty.String),
	})
	var v values
	require.NoError(t, Into(cfg, &v))
	assert.Equal(t, values{Cluster: Cluster{Name: "runtime"}, Replicas: 3, Labels: map[string]string{"a": "b"}}, v)
}

func TestIntoErrors(t *testing.T) {
	var v values
	assert.ErrorContains(t, Into(cty.NullVal(cty.DynamicPseudoType), &v), "configuration is null")
	assert.ErrorContains(t, Into(cty.ObjectVal(map[string]cty.Value{"replicas": cty.UnknownVal(cty.Number)}), &v), "known only after apply")
	assert.ErrorContains(t, Into(cty.ObjectVal(map[string]cty.Value{"unexpected": cty.True}), &v), `unknown field "unexpected"`)
}

// An object passed between blocks keeps whole numbers as int64 and round-trips through its cty
// value.
func TestObject(t *testing.T) {
	in := map[string]any{"spec": map[string]any{"replicas": int64(3), "ratio": 0.5, "list": []any{int64(1), "a", true}}}
	v, err := Value(in)
	require.NoError(t, err)
	data, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
	require.NoError(t, err)
	var out Object
	require.NoError(t, out.UnmarshalJSON(data))
	assert.Equal(t, Object(in), out)
}
