package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/zclconf/go-cty/cty"
)

func networks(pods, services, nodes string) cty.Value {
	val := func(s string) cty.Value {
		if s == "" {
			return cty.NullVal(cty.String)
		}
		return cty.StringVal(s)
	}
	return cty.ObjectVal(map[string]cty.Value{"net": cty.ObjectVal(map[string]cty.Value{
		"pods": val(pods), "services": val(services), "nodes": val(nodes),
	})})
}

func TestDisjointNetworks(t *testing.T) {
	rule := DisjointNetworks("net.nodes", "net.pods", "net.services")
	tests := []struct {
		name     string
		cfg      cty.Value
		wantPath [][]string
	}{
		{"disjoint", networks("10.1.0.0/16", "10.2.0.0/16", "10.0.0.0/16"), nil},
		{"pods inside nodes", networks("10.0.1.0/24", "10.2.0.0/16", "10.0.0.0/16"), [][]string{{"net", "pods"}}},
		{"services equal pods", networks("10.1.0.0/16", "10.1.0.0/16", ""), [][]string{{"net", "services"}}},
		{"unset and unparsable are left to other checks", networks("garbage", "10.1.0.0/16", ""), nil},
		{"unknown values are skipped", cty.ObjectVal(map[string]cty.Value{"net": cty.UnknownVal(cty.Object(map[string]cty.Type{"pods": cty.String}))}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths [][]string
			for _, v := range rule.Func(tt.cfg, nil) {
				paths = append(paths, v.Path)
				assert.Contains(t, v.Message, "overlaps")
			}
			assert.Equal(t, tt.wantPath, paths)
		})
	}
}

func TestDisjointFromReferenced(t *testing.T) {
	rule := DisjointFromReferenced("seed", []Path{"net.pods"}, []Path{"net.pods", "net.services"}, "they must be disjoint.")
	own := networks("10.1.0.0/16", "", "")
	assert.Empty(t, rule.Func(own, nil), "no referenced block known, nothing to compare")
	assert.Empty(t, rule.Func(own, map[string]cty.Value{"seed": networks("10.2.0.0/16", "10.3.0.0/16", "")}))
	v := rule.Func(own, map[string]cty.Value{"seed": networks("10.0.0.0/8", "10.3.0.0/16", "")})
	if assert.Len(t, v, 1) {
		assert.Equal(t, []string{"net", "pods"}, v[0].Path)
		assert.Contains(t, v[0].Message, "the seed's net.pods (10.0.0.0/8)")
	}
}

func TestExactlyAndAtLeastOneOf(t *testing.T) {
	obj := func(a, b bool) cty.Value {
		val := func(set bool) cty.Value {
			if set {
				return cty.StringVal("x")
			}
			return cty.NullVal(cty.String)
		}
		return cty.ObjectVal(map[string]cty.Value{"a": val(a), "b": val(b)})
	}
	exactly := ExactlyOneOf("a", "b")
	atLeast := AtLeastOneOf("a", "b")
	assert.Empty(t, exactly.Func(obj(true, false), nil))
	if none := exactly.Func(obj(false, false), nil); assert.Len(t, none, 1) {
		assert.Empty(t, none[0].Path)
		assert.Equal(t, "Exactly one of a, b must be set; none is.", none[0].Message)
	}
	both := exactly.Func(obj(true, true), nil)
	if assert.Len(t, both, 1) {
		assert.Equal(t, []string{"b"}, both[0].Path, "the second one set is the one to remove")
		assert.Equal(t, "Exactly one of a, b must be set, but a and b are.", both[0].Message)
	}
	assert.Empty(t, atLeast.Func(obj(false, true), nil))
	if none := atLeast.Func(obj(false, false), nil); assert.Len(t, none, 1) {
		assert.Equal(t, "At least one of a, b must be set.", none[0].Message)
	}
	atMost := AtMostOneOf("a", "b")
	assert.Empty(t, atMost.Func(obj(false, false), nil))
	assert.Empty(t, atMost.Func(obj(true, false), nil))
	if v := atMost.Func(obj(true, true), nil); assert.Len(t, v, 1) {
		assert.Equal(t, []string{"b"}, v[0].Path)
		assert.Equal(t, "At most one of a, b may be set, but a and b are.", v[0].Message)
	}
}
