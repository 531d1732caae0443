package networkpolicies

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"slices"
)

// The IP families of a cluster's networks (Gardener's IPFamily in docs/api-reference/core.md).
const (
	IPv4 = "IPv4"
	IPv6 = "IPv6"
)

// Networks are the networks of the cluster the policies are rendered in: a seed's (gardenlet's
// instance of the controller takes them from the seed configuration's .spec.networks) or the
// garden runtime cluster's (gardener-operator's instance takes the Garden's
// .spec.runtimeCluster.networking, IPv4 only): pkg/gardenlet/controller/networkpolicy/add.go and
// pkg/operator/controller/add.go in gardener/gardener v1.120.0.
type Networks struct {
	Pods       string   `json:"pods"`
	Services   string   `json:"services"`
	Nodes      string   `json:"nodes"`
	BlockCIDRs []string `json:"block_cidrs"`
	// IPFamilies are the families of the cluster's networks; only a single-stack cluster's own
	// networks are left out of the networks the policies open.
	IPFamilies []string `json:"ip_families"`
}

// blocked is what the policies for family leave out besides the private ranges: the blocked
// CIDRs (of any family), and the cluster's own pod, service and node networks if the cluster is
// single-stack of that family. A dual-stack cluster leaves out only the blocked CIDRs.
func (n Networks) blocked(family string) []string {
	out := slices.Clone(n.BlockCIDRs)
	if len(n.IPFamilies) == 1 && n.IPFamilies[0] == family {
		for _, c := range []string{n.Pods, n.Services, n.Nodes} {
			if c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// Private address ranges: RFC 1918 and carrier-grade NAT (RFC 6598) for IPv4, link-local and
// unique local addresses for IPv6, in the order the policies list them
// (pkg/controller/networkpolicy/peers.go in gardener/gardener v1.120.0).
var (
	privateV4 = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"}
	privateV6 = []string{"fe80::/10", "fc00::/7"}
)

// ipBlock is one ipBlock peer: a network and the networks inside it that it leaves out.
type ipBlock struct {
	CIDR   string
	Except []string
}

// ipBlocks makes one ipBlock per network, each leaving out the candidates that lie strictly
// inside it: a candidate whose address the network contains and whose prefix is longer than the
// network's. Candidates of the other family, and those as large as the network or larger, are
// not left out. The candidates keep the spelling they were given in; the network is written in
// its canonical form.
func ipBlocks(networks []string, candidates []string) ([]ipBlock, error) {
	out := make([]ipBlock, 0, len(networks))
	for _, n := range networks {
		_, network, err := net.ParseCIDR(n)
		if err != nil {
			return nil, fmt.Errorf("network %q: %w", n, err)
		}
		outer, _ := network.Mask.Size()
		var except []string
		for _, c := range candidates {
			ip, inner, err := net.ParseCIDR(c)
			if err != nil {
				return nil, fmt.Errorf("network %q: %w", c, err)
			}
			if size, _ := inner.Mask.Size(); network.Contains(ip) && outer < size {
				except = append(except, c)
			}
		}
		out = append(out, ipBlock{CIDR: network.String(), Except: except})
	}
	return out, nil
}

// clusterDNSAddress is the address of the cluster's DNS Service: the tenth address of its service
// network (Gardener's ComputeOffsetIP in pkg/utils/miscellaneous.go at v1.120.0, which also refuses
// an IPv4 network so small that the tenth address is its broadcast address), written as a
// single-address network.
func clusterDNSAddress(services string) (string, error) {
	_, network, err := net.ParseCIDR(services)
	if err != nil {
		return "", fmt.Errorf("service network %q: %w", services, err)
	}
	base, bits := network.IP.To4(), 32
	if base == nil {
		base, bits = network.IP.To16(), 128
	}
	sum := new(big.Int).Add(new(big.Int).SetBytes(base), big.NewInt(dnsServiceIPOffset)).Bytes()
	ip := make(net.IP, len(base))
	copy(ip[len(ip)-len(sum):], sum)
	if len(sum) > len(ip) || !network.Contains(ip) {
		return "", fmt.Errorf("service network %q is too small for the cluster DNS address", services)
	}
	if bits == 32 && isBroadcast(ip, network.Mask) {
		return "", fmt.Errorf("service network %q is too small for the cluster DNS address: the address would be its broadcast address", services)
	}
	return fmt.Sprintf("%s/%d", ip, bits), nil
}

// isBroadcast reports whether ip has every host bit of mask set.
func isBroadcast(ip net.IP, mask net.IPMask) bool {
	for i := range ip {
		if ip[i]|mask[i] != 0xff {
			return false
		}
	}
	return true
}

// hostCIDR is a single address written as a network of its own, as given, with the bit length
// of its form: /32 for an IPv4 address, /128 for an IPv6 one (an IPv4-mapped IPv6 address too).
func hostCIDR(address string) (string, error) {
	ip, err := netip.ParseAddr(address)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", address, err)
	}
	return fmt.Sprintf("%s/%d", address, ip.BitLen()), nil
}
