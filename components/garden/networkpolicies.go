package garden

import (
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/engine/render"
)

// networkPolicies adds the part network_policies: the NetworkPolicies gardener-operator's instance
// of the NetworkPolicy controller keeps in the namespaces the garden's parts create in the
// runtime cluster (the garden namespace, Istio's namespaces as their labels select them), with
// the runtime cluster's networks, which it supports as IPv4 only, and the API server endpoints
// read from the runtime cluster (pkg/operator/controller/add.go in gardener/gardener v1.120.0,
// components/networkpolicies). gardenlet leaves the controller to gardener-operator in a seed that
// is the runtime cluster; a seed block there renders the policies of the namespaces it creates.
func (g *builder) networkPolicies(in render.Input) error {
	n := g.v.RuntimeCluster.Networking
	p, err := networkpolicies.Part(in, g.runtime, networkpolicies.Networks{
		Pods: n.Pods, Services: n.Services, Nodes: n.Nodes, BlockCIDRs: n.BlockCIDRs, IPFamilies: []string{networkpolicies.IPv4},
	}, g.parts)
	if err != nil || p == nil {
		return err
	}
	g.parts = append(g.parts, *p)
	return nil
}
