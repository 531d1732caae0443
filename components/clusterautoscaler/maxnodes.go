package clusterautoscaler

import (
	"fmt"
	"math"
	"net"
	"strings"
)

// MaxNodesTotal is the most nodes a shoot's networks hold, as gardenlet computes the autoscaler's
// --max-nodes-total (CalculateMaxNodesTotal in pkg/gardenlet/operation/botanist/clusterautoscaler.go,
// gardener/gardener v1.120.0): the node ranges of nodeCIDRMaskSize the pod networks split into
// (an IPv6 pod network of a dual-stack shoot counts in /80 ranges), and the addresses of the node
// networks less network and broadcast for IPv4; per IP family the sum, over the families the
// least; then the least of that and the CloudProfile's limit. Each bound counts only when it is
// set (above 0); 0 means no cap. pods and nodes are comma-separated CIDRs, "" for none.
func MaxNodesTotal(pods, nodes string, nodeCIDRMaskSize int32, ipv6SingleStack bool, cloudProfileLimit int64) (int64, error) {
	if pods == "" {
		return minAboveZero(0, cloudProfileLimit), nil
	}
	byPods, err := perFamily(pods, func(n *net.IPNet, v4 bool) int64 {
		ones, _ := n.Mask.Size()
		exp := 80 - ones
		if v4 || ipv6SingleStack {
			exp = int(nodeCIDRMaskSize) - ones
		}
		return pow2(exp)
	})
	if err != nil {
		return 0, fmt.Errorf("pod network: %w", err)
	}
	var byNodes int64
	if nodes != "" {
		if byNodes, err = perFamily(nodes, func(n *net.IPNet, v4 bool) int64 {
			ones, bits := n.Mask.Size()
			count := pow2(bits - ones)
			if v4 {
				count -= 2
			}
			return count
		}); err != nil {
			return 0, fmt.Errorf("node network: %w", err)
		}
	}
	return minAboveZero(minAboveZero(byPods, byNodes), cloudProfileLimit), nil
}

// perFamily sums count over the CIDRs of each IP family and returns the least sum.
func perFamily(cidrs string, count func(n *net.IPNet, v4 bool) int64) (int64, error) {
	sums := map[bool]int64{}
	for _, s := range strings.Split(cidrs, ",") {
		_, n, err := net.ParseCIDR(strings.TrimSpace(s))
		if err != nil {
			return 0, err
		}
		v4 := n.IP.To4() != nil
		sums[v4] = saturatingAdd(sums[v4], count(n, v4))
	}
	least := int64(math.MaxInt64)
	for _, s := range sums {
		least = min(least, s)
	}
	return least, nil
}

// pow2 is 2^exp, the largest int64 above 2^62 (no cap in practice), 1 below 2^0.
func pow2(exp int) int64 {
	switch {
	case exp > 62:
		return math.MaxInt64
	case exp < 0:
		return 1
	}
	return int64(1) << exp
}

func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// minAboveZero is the lesser of a and b that is above 0, or 0 when neither is.
func minAboveZero(a, b int64) int64 {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0:
		return a
	}
	return min(a, b)
}
