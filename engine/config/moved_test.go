package config

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/address"
)

const movedBlocks = `
component "thing" "new" {
  cluster = cluster.runtime
}
shoot "dev" {
  for_each = toset(["a"])
  project  = "p"
}
`

func TestMovedBlocksAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name, moved string
		// summary is the expected error's; empty for none. line and column are where it points.
		summary      string
		line, column int
	}{
		{name: "rename", moved: `moved {
  from = component.thing.old
  to   = component.thing.new
}`},
		{name: "adding for_each moves the instance", moved: `moved {
  from = shoot.dev
  to   = shoot.dev["a"]
}`},
		{name: "chain", moved: `moved {
  from = component.thing.older
  to   = component.thing.old
}
moved {
  from = component.thing.old
  to   = component.thing.new
}`},
		{name: "another kind", moved: `moved {
  from = shoot.dev
  to   = component.thing.new
}`, summary: "Move to another kind of block", line: 3, column: 10},
		{name: "another type", moved: `moved {
  from = component.other.old
  to   = component.thing.new
}`, summary: "Move to another component type", line: 3, column: 10},
		{name: "from still declared", moved: `moved {
  from = component.thing.new
  to   = component.thing.old
}`, summary: "Moved block still declared", line: 2, column: 10},
		{name: "to undeclared", moved: `moved {
  from = component.thing.old
  to   = component.thing.gone
}`, summary: "Moved to an undeclared block", line: 3, column: 10},
		{name: "a part", moved: `moved {
  from = shoot.old.kube_apiserver
  to   = shoot.dev
}`, summary: "Invalid moved address", line: 2, column: 10},
		{name: "not a reference", moved: `moved {
  from = "component.thing.old"
  to   = component.thing.new
}`, summary: "Invalid moved address", line: 2, column: 10},
		{name: "twice", moved: `moved {
  from = component.thing.old
  to   = component.thing.new
}
moved {
  from = component.thing.old
  to   = component.thing.new
}`, summary: "Moved twice", line: 6, column: 10},
		{name: "cycle", moved: `moved {
  from = component.thing.a
  to   = component.thing.b
}
moved {
  from = component.thing.b
  to   = component.thing.a
}`, summary: "Cycle of moved blocks", line: 1, column: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLandscape(t, map[string]string{"main.hcl": base + movedBlocks, "moved.hcl": tc.moved})
			res, diags := Load(dir, testRegistry(t), InputSources{})
			if tc.summary == "" {
				require.False(t, diags.HasErrors(), diags.Error())
				assert.NotEmpty(t, res.Landscape.Moved)
				return
			}
			require.True(t, diags.HasErrors())
			assert.Equal(t, tc.summary, diags[0].Summary, diags.Error())
			require.NotNil(t, diags[0].Subject)
			assert.Equal(t, fmt.Sprintf("moved.hcl:%d,%d", tc.line, tc.column), fmt.Sprintf("%s:%d,%d", "moved.hcl", diags[0].Subject.Start.Line, diags[0].Subject.Start.Column))
			assert.Contains(t, diags[0].Subject.Filename, "moved.hcl")
		})
	}
}

func TestMovedAddressFollowsTheMoves(t *testing.T) {
	parse := func(s string) address.Address {
		a, err := address.Parse(s)
		require.NoError(t, err)
		return a
	}
	move := func(from, to string) *Moved { return &Moved{From: parse(from), To: parse(to)} }
	moves := []*Moved{
		move("component.thing.older", "component.thing.old"),
		move("component.thing.old", "component.thing.new"),
		move("shoot.single", `shoot.dev["a"]`),
		move("shoot.dev", "shoot.prod"),
		move(`seed.s["x"]`, `seed.s["y"]`),
	}
	for _, tc := range []struct{ from, to string }{
		{"component.thing.older", "component.thing.new"},
		{"component.thing.old", "component.thing.new"},
		{"component.thing.other", "component.thing.other"},
		{"shoot.single", `shoot.prod["a"]`},
		{"shoot.single.kube_apiserver", `shoot.prod["a"].kube_apiserver`},
		{`shoot.dev["b"].etcd_main`, `shoot.prod["b"].etcd_main`},
		{`seed.s["x"].gardenlet`, `seed.s["y"].gardenlet`},
		{`seed.s["z"]`, `seed.s["z"]`},
	} {
		got, by := MovedAddress(moves, parse(tc.from))
		assert.Equal(t, tc.to, got.String(), tc.from)
		assert.Equal(t, tc.from != tc.to, by != nil, tc.from)
	}
}
