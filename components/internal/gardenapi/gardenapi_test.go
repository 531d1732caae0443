package gardenapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
)

func TestNamedDefaultsTheNameAndDefers(t *testing.T) {
	name, namespace := "", GardenNamespace
	require.NoError(t, Named(render.Input{Name: "local"}, "quota", &name, &namespace))
	assert.Equal(t, "local", name)
	assert.Equal(t, "garden", namespace)

	name, namespace = "q", render.UnknownString
	err := Named(render.Input{Name: "local"}, "quota", &name, &namespace)
	assert.ErrorIs(t, err, render.ErrDeferred)
	assert.ErrorContains(t, err, "quota name or namespace")
	assert.NoError(t, Named(render.Input{Name: "local"}, "profile", &name, nil), "a cluster-scoped object has no namespace to wait for")
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
