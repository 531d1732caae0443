package graph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/config"
)

func TestLess(t *testing.T) {
	// Each address is less than every later one.
	sorted := addrs(
		"garden.b",
		"seed.a",
		`seed.a["a"]`,
		`seed.a["b"]`,
		"shoot.a[2]",
		"shoot.a[10]",
		`shoot.a["1"]`,
		"shoot.b",
		"component.helm_release.z",
		"component.manifests.a",
		"unknown.a",
	)
	for i := range sorted {
		for j := range sorted {
			assert.Equal(t, i < j, Less(sorted[i], sorted[j]), "Less(%s, %s)", sorted[i], sorted[j])
		}
	}
}

// landscapeEdges is a hand-built graph: a garden, two seeds, shoots on them and components
// around, with implicit edges mixed in.
func landscapeEdges() ([]config.InstanceAddress, []Edge) {
	nodes := addrs("garden.g", "seed.a", "seed.b", `shoot.s["x"]`, `shoot.s["y"]`, "shoot.t[0]", "shoot.t[1]",
		"component.thing.crds", "component.thing.druid", "component.thing.lone")
	e := func(from, to string) Edge {
		return Edge{From: config.InstanceAddress(from), To: config.InstanceAddress(to), Kind: Reference, Reason: "refers to " + to}
	}
	return nodes, []Edge{
		e("seed.a", "garden.g"), e("seed.b", "garden.g"),
		e(`shoot.s["x"]`, "seed.a"), e(`shoot.s["y"]`, "seed.a"),
		e("shoot.t[0]", "seed.b"), e("shoot.t[1]", "seed.b"),
		e("component.thing.crds", "garden.g"),
		{From: "component.thing.druid", To: "component.thing.crds", Reason: "its Etcd.druid.gardener.cloud objects need their CustomResourceDefinition"},
		{From: "seed.b", To: "component.thing.druid", Reason: "its objects in namespace \"druid\" need the Namespace"},
	}
}

func TestOrderIsStableUnderShuffledInput(t *testing.T) {
	nodes, edges := landscapeEdges()
	wantOrder := addrs("garden.g", "seed.a", `shoot.s["x"]`, `shoot.s["y"]`, "component.thing.crds",
		"component.thing.druid", "seed.b", "shoot.t[0]", "shoot.t[1]", "component.thing.lone")
	wantReverse := addrs("component.thing.lone", `shoot.s["x"]`, `shoot.s["y"]`, "shoot.t[0]", "shoot.t[1]",
		"seed.a", "seed.b", "component.thing.druid", "component.thing.crds", "garden.g")
	var wantEdges []Edge
	for i := range 20 {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		n, e := slices.Clone(nodes), slices.Clone(edges)
		r.Shuffle(len(n), func(i, j int) { n[i], n[j] = n[j], n[i] })
		r.Shuffle(len(e), func(i, j int) { e[i], e[j] = e[j], e[i] })
		g, diags := newGraph(blocksOf(n...), nil, e)
		require.False(t, diags.HasErrors(), diags.Error())
		assert.Equal(t, wantOrder, g.Order(), "run %d", i)
		assert.Equal(t, wantReverse, g.ReverseOrder(), "run %d", i)
		if wantEdges == nil {
			wantEdges = g.Edges()
		}
		assert.Equal(t, wantEdges, g.Edges(), "run %d", i)
		assert.Equal(t, addrs("garden.g", "component.thing.druid"), g.Dependencies("seed.b"), "run %d", i)
	}
}

// TestOrdersRespectEveryEdge checks the defining property on the hand-built graph: Order puts
// each instance after its dependencies, ReverseOrder before them.
func TestOrdersRespectEveryEdge(t *testing.T) {
	nodes, edges := landscapeEdges()
	g, diags := newGraph(blocksOf(nodes...), nil, edges)
	require.False(t, diags.HasErrors())
	pos := func(order []config.InstanceAddress, a config.InstanceAddress) int { return slices.Index(order, a) }
	order, reverse := g.Order(), g.ReverseOrder()
	assert.Len(t, order, len(nodes))
	assert.Len(t, reverse, len(nodes))
	for _, e := range g.Edges() {
		assert.Less(t, pos(order, e.To), pos(order, e.From), "%s after %s", e.From, e.To)
		assert.Less(t, pos(reverse, e.From), pos(reverse, e.To), "%s deleted before %s", e.From, e.To)
	}
}

func TestOrderOfAnEmptyGraph(t *testing.T) {
	g, diags := newGraph(nil, nil, nil)
	require.False(t, diags.HasErrors())
	assert.Empty(t, g.Order())
	assert.Empty(t, g.ReverseOrder())
	assert.Empty(t, g.Edges())
}
