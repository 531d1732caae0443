package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/config"
)

// extensionLandscape has a seed whose Seed part needs an extension that is installed on the
// seed and so refers to it, and a shoot on the seed.
const extensionLandscape = `
garden "g" { cluster = cluster.runtime }
seed "a" {
  garden  = garden.g
  cluster = cluster.runtime
}
component "thing" "ext" { value = seed.a.name }
shoot "s" { seed = seed.a }
`

// seedParts are seed.a's parts: its system components, the Seed after them, and a record
// after the Seed that the seed does not wait for.
var seedParts = []Part{
	{Addr: "seed.a.system", Parent: "seed.a"},
	{Addr: "seed.a.seed", Parent: "seed.a", DependsOn: addrs("seed.a.system")},
	{Addr: "seed.a.record", Parent: "seed.a", DependsOn: addrs("seed.a.seed"), Detached: true},
}

func TestNarrowCompositesBreaksThePartsCycle(t *testing.T) {
	needsExt := Edge{From: "seed.a.seed", To: "component.thing.ext", Reason: "its Seed a uses ControlPlane/x"}
	g, diags := Build(load(t, extensionLandscape), []Edge{needsExt}, seedParts...)
	require.False(t, diags.HasErrors(), diags.Error())

	assert.Equal(t, addrs("seed.a.system"), g.Dependencies("component.thing.ext"),
		"the extension waits for the seed's parts but the Seed, which waits for it")
	assert.Equal(t, []string{
		"component.thing.ext -> seed.a.system (reference): refers to seed.a, whose parts it waits for but seed.a.seed, which waits for it",
	}, edgeLines(g.EdgesBetween("component.thing.ext", "seed.a.system")))
	assert.Contains(t, g.Dependencies("seed.a"), config.InstanceAddress("seed.a.seed"), "the seed is done once its Seed is")
	assert.Equal(t, addrs("seed.a"), g.Dependencies("shoot.s"), "what refers to the seed still waits for all of it")

	assert.Equal(t, addrs("garden.g", "seed.a.system", "component.thing.ext", "seed.a.seed", "seed.a", "seed.a.record", "shoot.s"), g.Order())
	rev := g.ReverseOrder()
	assert.Less(t, indexOf(rev, "seed.a.seed"), indexOf(rev, "component.thing.ext"), "the Seed is deleted before the registration it needs")
	assert.Less(t, indexOf(rev, "component.thing.ext"), indexOf(rev, "seed.a.system"), "the extension is deleted before the seed's system components")
}

func TestNarrowCompositesKeepsEdgesOutsideCycles(t *testing.T) {
	g, diags := Build(load(t, extensionLandscape), nil, seedParts...)
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Equal(t, addrs("seed.a"), g.Dependencies("component.thing.ext"), "without a part needing it, the extension waits for the whole seed")
}

func TestNarrowCompositesLeavesOtherCyclesToTheDiagnostic(t *testing.T) {
	// The Seed needs the extension, which refers to the shoot, which refers to the seed: no part
	// of the seed needs the shoot directly, and the shoot may well need the Seed, so the cycle
	// stays an error.
	body := `
garden "g" { cluster = cluster.runtime }
seed "a" {
  garden  = garden.g
  cluster = cluster.runtime
}
shoot "s" { seed = seed.a }
component "thing" "ext" { value = shoot.s.name }
`
	needsExt := Edge{From: "seed.a.seed", To: "component.thing.ext", Reason: "its Seed a uses ControlPlane/x"}
	_, diags := Build(load(t, body), []Edge{needsExt}, seedParts...)
	require.True(t, diags.HasErrors())
	assert.Contains(t, diags.Error(), "Dependency cycle")
}

func TestStronglyConnected(t *testing.T) {
	var edges []Edge
	for from, tos := range map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}} {
		for _, to := range tos {
			edges = append(edges, Edge{From: config.InstanceAddress(from), To: config.InstanceAddress(to)})
		}
	}
	g := indexEdges(edges)
	c := stronglyConnected(g.deps)
	same := func(a, b string) bool {
		return c[g.id[config.InstanceAddress(a)]] == c[g.id[config.InstanceAddress(b)]]
	}
	assert.True(t, same("a", "b") && same("b", "c"))
	assert.True(t, same("d", "e"))
	assert.False(t, same("a", "d"))
	assert.False(t, same("f", "a"))
}

func indexOf(list []config.InstanceAddress, a config.InstanceAddress) int {
	for i, x := range list {
		if x == a {
			return i
		}
	}
	return -1
}
