package shoot

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// withGardenersTestNetworks gives the seed and the shoot the networks of Gardener's own test of
// the NetworkPolicy controller (test/integration/gardenlet/networkpolicy in gardener/gardener
// v1.120.0): seed pods 10.0.0.0/16, services 10.1.0.0/16, nodes 10.2.0.0/16, blocked CIDR
// 169.254.169.254/32, IPv4; shoot pods 10.150.0.0/16, services 192.168.0.0/17 (the test's
// 192.168.1.0/17 has host bits set, which the shoot's kube-apiserver refuses), nodes 172.16.2.0/18.
func withGardenersTestNetworks(v *Values) {
	v.Seed.Pods, v.Seed.Services, v.Seed.Nodes = "10.0.0.0/16", "10.1.0.0/16", "10.2.0.0/16"
	v.Seed.BlockCIDRs, v.Seed.IPFamilies = []string{"169.254.169.254/32"}, []string{"IPv4"}
	v.Networking.Pods, v.Networking.Services, v.Networking.Nodes = "10.150.0.0/16", "192.168.0.0/17", "172.16.2.0/18"
}

// egressPeers lists a NetworkPolicy's egress rules, one string per rule: its ipBlock peers as
// "cidr" or "cidr except a,b", then its other peers as "pods".
func egressPeers(t *testing.T, policy *unstructured.Unstructured) []string {
	t.Helper()
	rules, _, err := unstructured.NestedSlice(policy.Object, "spec", "egress")
	require.NoError(t, err)
	var out []string
	for _, r := range rules {
		to, _, _ := unstructured.NestedSlice(r.(map[string]any), "to")
		var peers []string
		for _, p := range to {
			cidr, found, _ := unstructured.NestedString(p.(map[string]any), "ipBlock", "cidr")
			if !found {
				peers = append(peers, "pods")
				continue
			}
			except, _, _ := unstructured.NestedStringSlice(p.(map[string]any), "ipBlock", "except")
			if len(except) > 0 {
				cidr += " except " + strings.Join(except, ",")
			}
			peers = append(peers, cidr)
		}
		out = append(out, strings.Join(peers, "; "))
	}
	return out
}

// gardenlet's NetworkPolicy controller keeps six policies in every shoot control-plane namespace
// (label gardener.cloud/role=shoot) and leaves the shoot's own networks, which it reads from the
// extensions Cluster, out of the private networks (pkg/controller/networkpolicy/reconciler.go and
// test/integration/gardenlet/networkpolicy/networkpolicy_test.go in gardener/gardener v1.120.0).
func TestNetworkPoliciesInTheControlPlaneNamespace(t *testing.T) {
	ps := parts(t, values(withGardenersTestNetworks))
	p, ok := ps["network_policies"]
	require.True(t, ok, "the shoot renders the part network_policies")
	assert.Equal(t, "network_policies", p.Type)
	assert.Equal(t, []string{"namespace"}, p.DependsOn, "after the namespace, and deleted before it")
	var names []string
	for _, o := range p.Objects {
		assert.Equal(t, "seed1", o.Cluster)
		assert.Equal(t, "NetworkPolicy", o.Object.GetKind())
		assert.Equal(t, "shoot--local--dev", o.Object.GetNamespace())
		names = append(names, o.Object.GetName())
	}
	assert.ElementsMatch(t, []string{"deny-all", "allow-to-runtime-apiserver", "allow-to-public-networks",
		"allow-to-private-networks", "allow-to-blocked-cidrs", "allow-to-dns"}, names)

	policy := func(name string) *unstructured.Unstructured { return find(t, p, "NetworkPolicy", name) }
	assert.Equal(t, []string{
		"10.0.0.0/8 except 10.0.0.0/16,10.1.0.0/16,10.2.0.0/16,10.150.0.0/16; 172.16.0.0/12 except 172.16.2.0/18; " +
			"192.168.0.0/16 except 192.168.0.0/17; 100.64.0.0/10",
		"fe80::/10; fc00::/7",
	}, egressPeers(t, policy("allow-to-private-networks")), "the seed's, then the shoot's nodes, pods and services left out")
	assert.Equal(t, []string{
		"0.0.0.0/0 except 10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,169.254.169.254/32; ::/0 except fe80::/10,fc00::/7",
	}, egressPeers(t, policy("allow-to-public-networks")))
	assert.Equal(t, []string{"169.254.169.254/32"}, egressPeers(t, policy("allow-to-blocked-cidrs")))
	assert.Equal(t, []string{"pods; pods; 169.254.20.10/32; fd30:1319:f1e:230b::1/128; 10.1.0.10/32"},
		egressPeers(t, policy("allow-to-dns")), "the seed's cluster DNS, not the shoot's")
	deny, _, _ := unstructured.NestedMap(policy("deny-all").Object, "spec")
	assert.Equal(t, map[string]any{"podSelector": map[string]any{}, "policyTypes": []any{"Ingress", "Egress"}}, deny)
}

// A shoot of the IPv6 family has its networks left out of the IPv6 rule; the seed's stay where
// its own family puts them (pkg/controller/networkpolicy/reconciler.go in gardener/gardener
// v1.120.0: an IPv4 single-stack shoot, or one without IP families, to the IPv4 rule, else to the
// IPv6 rule).
func TestNetworkPoliciesOfAnIPv6Shoot(t *testing.T) {
	ps := parts(t, values(func(v *Values) {
		withGardenersTestNetworks(v)
		v.Networking.IPFamilies = []string{"IPv6"}
		v.Networking.Pods, v.Networking.Services, v.Networking.Nodes = "fd00:10:150::/56", "fd00:10:192::/112", "fd00:10:172::/64"
	}))
	assert.Equal(t, []string{
		"10.0.0.0/8 except 10.0.0.0/16,10.1.0.0/16,10.2.0.0/16; 172.16.0.0/12; 192.168.0.0/16; 100.64.0.0/10",
		"fe80::/10; fc00::/7 except fd00:10:172::/64,fd00:10:150::/56,fd00:10:192::/112",
	}, egressPeers(t, find(t, ps["network_policies"], "NetworkPolicy", "allow-to-private-networks")))
}

// The policies read the seed API server's endpoints from the seed cluster, and the seed's
// networks reach a shoot through the seed's outputs: a shoot of a Shoot created through the API
// gets the same policies.
func TestNetworkPoliciesReadTheSeedAPIServer(t *testing.T) {
	v := values(withGardenersTestNetworks)
	slice := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":  map[string]any{"name": "kubernetes", "namespace": "default"},
		"endpoints": []any{map[string]any{"addresses": []any{"172.18.0.2"}}},
		"ports":     []any{map[string]any{"port": int64(6443), "protocol": "TCP"}},
	}}
	var listed []render.ListRef
	in := render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC),
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			listed = append(listed, ref)
			if ref.Resource == "endpointslices" && ref.Cluster == "seed1" {
				return []unstructured.Unstructured{*slice}, nil
			}
			return nil, nil
		},
	}
	out, err := Type.Render(in, v)
	require.NoError(t, err)
	var p *render.Component
	for i := range out.Components {
		if out.Components[i].Name == "network_policies" {
			p = &out.Components[i]
		}
	}
	require.NotNil(t, p)
	api := find(t, *p, "NetworkPolicy", "allow-to-runtime-apiserver")
	assert.Equal(t, []string{"172.18.0.2/32"}, egressPeers(t, api))
	ports, _, _ := unstructured.NestedSlice(api.Object, "spec", "egress")
	assert.Equal(t, []any{map[string]any{"port": int64(6443), "protocol": "TCP"}}, ports[0].(map[string]any)["ports"], fmt.Sprint(ports))
	assert.Contains(t, listed, render.ListRef{Cluster: "seed1", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices",
		Namespace: "default", LabelSelector: "kubernetes.io/service-name=kubernetes"})
}

// Hibernation scales the control plane down and keeps the policies: the part is no scaled part,
// and it still comes after the namespace and goes before it.
func TestNetworkPoliciesStayInHibernation(t *testing.T) {
	ps := parts(t, values(hibernated))
	p, ok := ps["network_policies"]
	require.True(t, ok)
	assert.Len(t, p.Objects, 6)
	assert.Equal(t, []string{"namespace"}, p.DependsOn)
	assert.Equal(t, []string{"namespace"}, p.DeletionDependsOn)
}

// A shoot reads the seed's blocked CIDRs and IP families from the seed's outputs, as a seed block
// passes them to its shoots and to the Shoots created through the API on it.
func TestSeedRefReadsThePolicyNetworks(t *testing.T) {
	var s SeedRef
	require.NoError(t, json.Unmarshal([]byte(`{"networks": {"pods": "10.0.0.0/16", "block_cidrs": ["169.254.169.254/32"], "ip_families": ["IPv6"]}}`), &s))
	assert.Equal(t, "10.0.0.0/16", s.Pods)
	assert.Equal(t, []string{"169.254.169.254/32"}, s.BlockCIDRs)
	assert.Equal(t, []string{"IPv6"}, s.IPFamilies)
}
