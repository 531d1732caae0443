package rendering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
)

type testMark struct{}

func TestPrepare(t *testing.T) {
	cfg := cty.ObjectVal(map[string]cty.Value{
		"name":     cty.StringVal("etcd"),
		"password": cty.StringVal("hunter22").Mark(testMark{}),
		"tokens":   cty.ListVal([]cty.Value{cty.StringVal("t1"), cty.StringVal("t2")}).Mark(testMark{}),
		"address":  cty.UnknownVal(cty.String),
		"nested":   cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80)}),
	})
	p := prepare(cfg, testMark{})
	for _, s := range []string{"hunter22", "aHVudGVyMjI=", "aHVudGVyMjI", "68756e7465723232", "68756E7465723232", "t1", "dDE=", "t2", "dDI="} {
		assert.Contains(t, p.Secrets, s, "secrets with their base64 and hex forms")
	}
	assert.NotContains(t, p.Secrets, "etcd")
	assert.ElementsMatch(t, []cty.Path{cty.GetAttrPath("password"), cty.GetAttrPath("tokens")}, p.Marked)
	quoted := prepare(cty.ObjectVal(map[string]cty.Value{"p": cty.StringVal(`a"b <c>/d`).Mark(testMark{})}), testMark{})
	for _, form := range []string{`a\"b <c>/d`, `a\"b \u003cc\u003e/d`, "a%22b+%3Cc%3E%2Fd", "a%22b%20%3Cc%3E%2Fd"} {
		assert.Contains(t, quoted.Secrets, form, "JSON-escaped, Go-quoted and URL-encoded forms")
	}
	numbers := prepare(cty.ObjectVal(map[string]cty.Value{
		"port": cty.NumberIntVal(-31337).Mark(testMark{}), "replicas": cty.NumberIntVal(3).Mark(testMark{}),
	}), testMark{})
	assert.Equal(t, []string{"-31337", "31337"}, numbers.Secrets, "sensitive numbers of four digits or more as they print; shorter ones are hidden only by their place")
	assert.Len(t, numbers.Marked, 2)
	assert.Empty(t, p.Deferred)
	assert.False(t, p.Config.ContainsMarked())
	assert.Equal(t, render.UnknownString, p.Config.GetAttr("address").AsString())
	assert.True(t, p.Config.IsWhollyKnown())

	deferred := prepare(cty.ObjectVal(map[string]cty.Value{
		"replicas": cty.UnknownVal(cty.Number),
		"labels":   cty.UnknownVal(cty.Map(cty.String)),
	}), testMark{})
	require.Len(t, deferred.Deferred, 2)
}
