package rendertest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/zclconf/go-cty/cty"
)

func TestConfigLeavesDefaultsAlone(t *testing.T) {
	defaults := map[string]cty.Value{"cluster": Cluster("runtime"), "replicas": cty.NumberIntVal(1)}
	got := Config(defaults, map[string]cty.Value{"replicas": cty.NumberIntVal(2)})
	assert.True(t, got.GetAttr("replicas").RawEquals(cty.NumberIntVal(2)))
	assert.True(t, defaults["replicas"].RawEquals(cty.NumberIntVal(1)))
	assert.Equal(t, "runtime", got.GetAttr("cluster").GetAttr("name").AsString())
}

func TestFromJSON(t *testing.T) {
	v := FromJSON(t, `{"cluster": {"name": "virtual"}, "zones": ["a"]}`)
	assert.Equal(t, "virtual", v.GetAttr("cluster").GetAttr("name").AsString())
	assert.Equal(t, 1, v.GetAttr("zones").LengthInt())
}
