package shoot

import (
	"github.com/declarative-gardener/gardener/components/networkpolicies"
)

// networkPolicies adds the part network_policies: the NetworkPolicies gardenlet's NetworkPolicy
// controller keeps in the control-plane namespace, which it selects by the label
// gardener.cloud/role=shoot (pkg/controller/networkpolicy/reconciler.go in gardener/gardener
// v1.120.0): deny-all, allow-to-runtime-apiserver, allow-to-public-networks,
// allow-to-private-networks, allow-to-blocked-cidrs and allow-to-dns, computed with the seed's
// networks and the seed API server's endpoints, and leaving the shoot's own networks, which the
// controller reads from the extensions Cluster, out of the public and private networks
// (components/networkpolicies reads them from the Cluster among the parts).
//
// The part comes after the namespace and is deleted before it. The controller is no step of the
// shoot's flow: the part is neither scaled by hibernation, which keeps the policies, nor held by
// the maintenance window (networkPolicies runs after confineToWindow).
func (b *builder) networkPolicies() error {
	seed := networkpolicies.Networks{
		Pods: b.seed.Pods, Services: b.seed.Services, Nodes: b.seed.Nodes,
		BlockCIDRs: b.seed.BlockCIDRs, IPFamilies: b.seed.IPFamilies,
	}
	if len(seed.IPFamilies) == 0 {
		seed.IPFamilies = []string{networkpolicies.IPv4} // a seed built in Go without them: the Seed API's default
	}
	p, err := networkpolicies.Part(b.in, b.seed.Cluster, seed, b.parts)
	if err != nil || p == nil {
		return err
	}
	b.parts = append(b.parts, *p)
	return nil
}
