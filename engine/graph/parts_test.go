package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/config"
)

func TestPartEdges(t *testing.T) {
	garden := config.InstanceAddress("garden.local")
	crds := config.InstanceAddress("component.manifests.crds")
	a, b := garden+".a", garden+".b"
	edges := []Edge{{From: garden, To: crds, Kind: Reference, Reason: "refers to component.manifests.crds"}}
	got := partEdges(edges, []Part{{Addr: a, Parent: garden}, {Addr: b, Parent: garden, DependsOn: []config.InstanceAddress{a}}})
	var pairs []string
	for _, e := range got {
		pairs = append(pairs, string(e.From)+" -> "+string(e.To)+": "+e.Reason)
	}
	assert.ElementsMatch(t, []string{
		"garden.local -> garden.local.a: it is made of this part",
		"garden.local -> garden.local.b: it is made of this part",
		"garden.local.b -> garden.local.a: garden.local applies its parts in this order",
		"garden.local.a -> component.manifests.crds: refers to component.manifests.crds (as part of garden.local)",
	}, pairs, "only the first part inherits the composite's dependencies; the second waits for it")

	g, diags := newGraph(blocksOf(garden, crds), []config.InstanceAddress{a, b}, append(edges, got...))
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Equal(t, []config.InstanceAddress{crds, a, b, garden}, g.Order())
	assert.Equal(t, []config.InstanceAddress{garden, b, a, crds}, g.ReverseOrder())
}

func TestPartsSortAfterTheirComposite(t *testing.T) {
	assert.True(t, Less("garden.local", "garden.local.a"))
	assert.True(t, Less("garden.local.a", "garden.local.b"))
	assert.True(t, Less(`shoot.x["a"].z`, `shoot.x["b"]`), "parts sort with their instance, not by their name")
	assert.True(t, Less("garden.local.z", "seed.local"))
}
