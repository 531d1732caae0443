package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/config"
)

func TestBuildEdges(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		edges []string
		order []string
	}{
		{
			name: "references between blocks; references to clusters are not edges",
			body: `
garden "g" { cluster = cluster.runtime }
seed "a" {
  garden  = garden.g
  cluster = cluster.runtime
}
shoot "s" { seed = seed.a }
`,
			edges: []string{
				"seed.a -> garden.g (reference): refers to garden.g",
				"shoot.s -> seed.a (reference): refers to seed.a",
			},
			order: []string{"garden.g", "seed.a", "shoot.s"},
		},
		{
			name: "outputs referred to in expressions",
			body: `
garden "g" {}
component "thing" "c" { value = "x-${garden.g.name}" }
`,
			edges: []string{`component.thing.c -> garden.g (reference): refers to garden.g`},
			order: []string{"garden.g", "component.thing.c"},
		},
		{
			name: "depends_on",
			body: `
seed "a" {}
component "thing" "c" { depends_on = [seed.a] }
`,
			edges: []string{"component.thing.c -> seed.a (depends_on): depends_on seed.a"},
			order: []string{"seed.a", "component.thing.c"},
		},
		{
			name: "for_each and count instances inherit their block's edges",
			body: `
seed "a" { for_each = toset(["x", "y"]) }
shoot "s" {
  count = 2
  seed  = seed.a["x"]
}
`,
			edges: []string{
				`shoot.s[0] -> seed.a["x"] (reference): refers to seed.a`,
				`shoot.s[0] -> seed.a["y"] (reference): refers to seed.a`,
				`shoot.s[1] -> seed.a["x"] (reference): refers to seed.a`,
				`shoot.s[1] -> seed.a["y"] (reference): refers to seed.a`,
			},
			order: []string{`seed.a["x"]`, `seed.a["y"]`, "shoot.s[0]", "shoot.s[1]"},
		},
		{
			name: "for_each over another block's instances",
			body: `
seed "a" { for_each = toset(["x"]) }
shoot "s" {
  for_each = seed.a
  seed     = each.value
}
`,
			edges: []string{`shoot.s["x"] -> seed.a["x"] (reference): refers to seed.a`},
			order: []string{`seed.a["x"]`, `shoot.s["x"]`},
		},
		{
			name: "references through locals",
			body: `
seed "a" {}
locals {
  seed_name = seed.a.name
  label     = "seed-${local.seed_name}"
}
component "thing" "c" { value = local.label }
`,
			edges: []string{"component.thing.c -> seed.a (reference): refers to local.label, which refers to local.seed_name, which refers to seed.a"},
			order: []string{"seed.a", "component.thing.c"},
		},
		{
			name: "references through a cluster whose configuration comes from a block",
			body: `
garden "g" { cluster = cluster.runtime }
cluster "virtual" { context = garden.g.name }
component "thing" "c" { cluster = cluster.virtual }
`,
			edges: []string{"component.thing.c -> garden.g (reference): refers to cluster.virtual, which refers to garden.g"},
			order: []string{"garden.g", "component.thing.c"},
		},
		{
			name: "references through a block without instances",
			body: `
seed "a" {}
shoot "none" {
  for_each = {}
  seed     = seed.a
}
component "thing" "c" { depends_on = [shoot.none] }
`,
			edges: []string{"component.thing.c -> seed.a (depends_on): depends_on shoot.none, which refers to seed.a"},
			order: []string{"seed.a", "component.thing.c"},
		},
		{
			name: "two references to the same block are two reasons for one edge",
			body: `
seed "a" {}
shoot "s" {
  seed  = seed.a
  value = seed.a.name
  depends_on = [seed.a]
}
`,
			edges: []string{
				"shoot.s -> seed.a (reference): refers to seed.a",
				"shoot.s -> seed.a (reference): refers to seed.a",
				"shoot.s -> seed.a (depends_on): depends_on seed.a",
			},
			order: []string{"seed.a", "shoot.s"},
		},
		{
			name: "order: kind first, then address, wherever edges allow",
			body: `
component "thing" "b" {}
component "thing" "a" {}
shoot "s" {}
seed "z" { depends_on = [component.thing.b] }
seed "y" {}
garden "g" {}
`,
			edges: []string{"seed.z -> component.thing.b (depends_on): depends_on component.thing.b"},
			order: []string{"garden.g", "seed.y", "shoot.s", "component.thing.a", "component.thing.b", "seed.z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.body)
			assert.Equal(t, tt.edges, edgeLines(g.Edges()))
			assert.Equal(t, addrs(tt.order...), g.Order())
		})
	}
}

func TestEdgesKeepTheirSourceRange(t *testing.T) {
	g := build(t, `
seed "a" {}
shoot "s" { seed = seed.a }
`)
	edges := g.EdgesBetween("shoot.s", "seed.a")
	require.Len(t, edges, 1)
	require.NotNil(t, edges[0].Range)
	assert.Equal(t, 5, edges[0].Range.Start.Line)
	assert.Equal(t, 20, edges[0].Range.Start.Column)
	assert.Empty(t, g.EdgesBetween("seed.a", "shoot.s"))
}

func TestDependenciesAndDependents(t *testing.T) {
	g := build(t, `
garden "g" {}
seed "a" { garden = garden.g }
seed "b" { garden = garden.g }
shoot "s" {
  for_each = toset(["x", "y"])
  seed     = seed.b
  value    = seed.a.name
}
`)
	assert.Equal(t, addrs("seed.a", "seed.b"), g.Dependents("garden.g"))
	assert.Empty(t, g.Dependencies("garden.g"))
	assert.Equal(t, addrs("seed.a", "seed.b"), g.Dependencies(`shoot.s["x"]`))
	assert.Equal(t, addrs(`shoot.s["x"]`, `shoot.s["y"]`), g.Dependents("seed.a"))
	assert.Equal(t, 5, g.Len())
	assert.True(t, g.Has(`shoot.s["y"]`))
	assert.False(t, g.Has("shoot.s"))
	require.NotNil(t, g.Instance(`shoot.s["y"]`))
	assert.Equal(t, "y", g.Instance(`shoot.s["y"]`).Key.AsString())
}

func TestImplicitEdgesJoinTheGraph(t *testing.T) {
	g := build(t, `
component "thing" "crds" {}
component "thing" "druid" {}
`, Edge{From: "component.thing.druid", To: "component.thing.crds", Reason: "its Etcd.druid.gardener.cloud objects need their CustomResourceDefinition"},
		Edge{From: "component.thing.crds", To: "component.thing.crds", Reason: "ignored: an instance never waits for itself"})
	assert.Equal(t, []string{"component.thing.druid -> component.thing.crds (implicit): its Etcd.druid.gardener.cloud objects need their CustomResourceDefinition"}, edgeLines(g.Edges()))
	assert.Equal(t, addrs("component.thing.crds", "component.thing.druid"), g.Order())
}

func TestImplicitEdgeToAnUnknownInstance(t *testing.T) {
	_, diags := Build(load(t, `component "thing" "a" {}`), []Edge{{From: "component.thing.a", To: "component.thing.gone", Reason: "because"}})
	require.Len(t, diags, 1)
	assert.Equal(t, "Dependency on an unknown component", diags[0].Summary)
	assert.Equal(t, "An edge from component.thing.a to component.thing.gone (because) names component.thing.gone, which the landscape does not declare.", diags[0].Detail)
}

// A detached part comes after what it names, but its composite, and so what depends on the
// composite, does not wait for it.
func TestDetachedPartsAreNotWaitedFor(t *testing.T) {
	edges := partEdges(nil, []Part{
		{Addr: "seed.a.seed", Parent: "seed.a"},
		{Addr: "seed.a.bucket", Parent: "seed.a", DependsOn: []config.InstanceAddress{"seed.a.seed"}, Detached: true},
	})
	var pairs []string
	for _, e := range edges {
		pairs = append(pairs, string(e.From)+" -> "+string(e.To))
	}
	assert.Contains(t, pairs, "seed.a -> seed.a.seed")
	assert.Contains(t, pairs, "seed.a.bucket -> seed.a.seed")
	assert.NotContains(t, pairs, "seed.a -> seed.a.bucket")
}
