package gardenapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
)

type values struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

func TestDecodeDefaultsTheNameAndDefers(t *testing.T) {
	var v values
	config := cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(""), "namespace": cty.StringVal("")})
	require.NoError(t, Decode(render.Input{Name: "local", Config: config}, "quota", &v, &v.Name, &v.Namespace))
	assert.Equal(t, "local", v.Name)
	assert.Equal(t, "garden", Namespace(v.Namespace))

	config = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("q"), "namespace": cty.StringVal(render.UnknownString)})
	err := Decode(render.Input{Name: "local", Config: config}, "quota", &v, &v.Name, &v.Namespace)
	assert.ErrorIs(t, err, render.ErrDeferred)
	assert.ErrorContains(t, err, "quota name or namespace")
	assert.NoError(t, Decode(render.Input{Name: "local", Config: config}, "profile", &v, &v.Name, nil), "a cluster-scoped object has no namespace to wait for")
}

func TestOutput(t *testing.T) {
	assert.Equal(t, map[string]cty.Value{"name": cty.StringVal("p")}, Output(nil, "p", "").Outputs)
	assert.Equal(t, map[string]cty.Value{"name": cty.StringVal("b"), "namespace": cty.StringVal("garden")}, Output(nil, "b", "garden").Outputs)
}

func TestFields(t *testing.T) {
	assert.Equal(t, map[string]any{"matchLabels": map[string]any{}}, MatchLabels(nil), "an empty selector matches everything")
	ts, err := Tolerations([]Toleration{{Key: "a", Value: "1"}, {Key: "b"}})
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{"key": "a", "value": "1"}, map[string]any{"key": "b"}}, ts)
	_, err = Tolerations([]Toleration{{Key: "a"}, {Key: "a"}})
	assert.ErrorContains(t, err, "toleration a= is given twice")
	refs, err := QuotaRefs([]Ref{{Name: "q"}}, "garden-dev")
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{"name": "q", "namespace": "garden-dev"}}, refs)
	_, err = QuotaRefs([]Ref{{Name: "q"}, {Name: "q", Namespace: "garden-dev"}}, "garden-dev")
	assert.ErrorContains(t, err, "quota garden-dev/q is referenced twice")
	assert.ErrorContains(t, ValidateName("quota", "Q"), `quota name "Q" is invalid`)
}
