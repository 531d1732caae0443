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
	assert.Equal(t, []string{"aHVudGVyMjI=", "dDE=", "dDI=", "hunter22", "t1", "t2"}, p.Secrets, "secrets and their base64 forms")
	quoted := prepare(cty.ObjectVal(map[string]cty.Value{"p": cty.StringVal(`a"b`).Mark(testMark{})}), testMark{})
	assert.Contains(t, quoted.Secrets, `a\"b`, "the JSON-escaped form")
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
