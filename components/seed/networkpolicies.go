package seed

import (
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/engine/render"
)

// withNetworkPolicies adds to a seed's parts the part network_policies: the NetworkPolicies
// gardenlet's NetworkPolicy controller keeps in the namespaces the seed's parts create (the
// garden namespace, Istio's namespaces as their labels select them), with the seed's networks
// and the API server endpoints read from the seed cluster (components/networkpolicies).
func withNetworkPolicies(in render.Input, v Values, parts []render.Component) ([]render.Component, error) {
	p, err := networkpolicies.Part(in, v.Cluster.Name, PolicyNetworks(v), parts)
	if err != nil || p == nil {
		return parts, err
	}
	return append(parts, *p), nil
}

// PolicyNetworks are the networks with which the NetworkPolicy controller runs in the seed
// cluster, for the seed's namespaces and for its shoots' control-plane namespaces alike: the
// seed's, with IPv4 where the seed names no IP family (the Seed API's default). Where the seed is
// the garden runtime cluster, gardenlet leaves the controller to gardener-operator, whose
// instance runs with IPv4 networks only (pkg/gardenlet/controller/networkpolicy/add.go and
// pkg/operator/controller/add.go in gardener/gardener v1.120.0); the garden block renders the
// policies of the namespaces it creates there, the seed and its shoots those of their own.
func PolicyNetworks(v Values) networkpolicies.Networks {
	n := networkpolicies.Networks{
		Pods: v.Networks.Pods, Services: v.Networks.Services, Nodes: v.Networks.Nodes,
		BlockCIDRs: v.Networks.BlockCIDRs, IPFamilies: v.Networks.IPFamilies,
	}
	if len(n.IPFamilies) == 0 || (v.Garden.RuntimeCluster != "" && v.Garden.RuntimeCluster == v.Cluster.Name) {
		n.IPFamilies = []string{networkpolicies.IPv4} // the Seed API's default
	}
	return n
}
