package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/config"
)

// An extension's installation on a seed follows the Seed (gardener-controller-manager creates the
// ControllerInstallation only once the Seed exists): it is applied after the Seed, like any
// dependency, and deleted after it too, while the registration the Seed needs is deleted last.
func TestFollowsKeepsItsDirectionWhenDeleting(t *testing.T) {
	ext := config.InstanceAddress("component.extension.local")
	seed := config.InstanceAddress("seed.local")
	reg, inst, seedObj := ext+".registration", ext+".installation_local", seed+".seed"
	parts := []Part{
		{Addr: reg, Parent: ext},
		{Addr: inst, Parent: ext, DependsOn: []config.InstanceAddress{reg}, Detached: true},
		{Addr: seedObj, Parent: seed},
	}
	edges := []Edge{
		{From: seedObj, To: reg, Reason: "its Seed local uses ControlPlane/local"},
		{From: inst, To: seedObj, Reason: "gardener-controller-manager installs it once Seed local exists", Kind: Follows},
	}
	edges = append(edges, partEdges(edges, parts)...)
	g, diags := newGraph(blocksOf(ext, seed), []config.InstanceAddress{reg, inst, seedObj}, edges)
	require.False(t, diags.HasErrors(), diags.Error())

	order := g.Order()
	assert.Less(t, indexOf(order, seedObj), indexOf(order, inst), "applied after the Seed: %v", order)
	assert.Equal(t, []config.InstanceAddress{seedObj, reg}, g.Dependencies(inst))

	assert.Equal(t, []config.InstanceAddress{seedObj}, g.DeletionDependencies(inst), "deleted after the Seed it follows")
	assert.Equal(t, []config.InstanceAddress{seed}, g.DeletionDependencies(seedObj), "not after the installation that follows it")
	assert.Equal(t, []config.InstanceAddress{seedObj, ext, inst}, g.DeletionDependencies(reg))
	reverse := g.ReverseOrder()
	assert.Less(t, indexOf(reverse, seedObj), indexOf(reverse, inst), "the Seed goes first: %v", reverse)
	assert.Less(t, indexOf(reverse, inst), indexOf(reverse, reg), "the registration last: %v", reverse)

	// The state records the removal order with the Follows edge turned around: removing both
	// deletes the Seed before the installation.
	assert.Equal(t, []config.InstanceAddress{reg}, g.RemovalDependencies(inst))
	assert.Equal(t, []config.InstanceAddress{inst, reg}, g.RemovalDependencies(seedObj))
}

func TestNothingMayDependOnAFollower(t *testing.T) {
	a, b, c := config.InstanceAddress("component.manifests.a"), config.InstanceAddress("component.manifests.b"), config.InstanceAddress("component.manifests.c")
	_, diags := newGraph(blocksOf(a, b, c), nil, []Edge{
		{From: a, To: b, Reason: "follows b", Kind: Follows},
		{From: c, To: a, Reason: "refers to a", Kind: Reference},
	})
	require.True(t, diags.HasErrors())
	assert.Contains(t, diags.Error(), "component.manifests.a follows component.manifests.b (follows b), so nothing may depend on it, but component.manifests.c does")
}
