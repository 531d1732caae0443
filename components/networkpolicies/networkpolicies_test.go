package networkpolicies

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// The networks of the seed in Gardener's own test of the controller
// (test/integration/gardenlet/networkpolicy in gardener/gardener v1.120.0), so that the
// expectations below are the ones Gardener checks.
var seedNetworks = Networks{
	Pods: "10.0.0.0/16", Services: "10.1.0.0/16", Nodes: "10.2.0.0/16",
	BlockCIDRs: []string{"169.254.169.254/32"}, IPFamilies: []string{IPv4},
}

// shootNetworks are networks of a shoot in the order its Cluster names them (nodes, pods,
// services); Gardener's test writes two of them with host bits set, which the API server of
// Kubernetes 1.33 and later refuses in a NetworkPolicy's except list.
var shootNetworks = &ShootNetworks{CIDRs: []string{"172.16.64.0/18", "10.150.0.0/16", "192.168.128.0/17"}}

// namespaces are one namespace of each kind the controller tells apart, and one it leaves alone.
var namespaces = []Namespace{
	{Name: "garden"},
	{Name: "istio-system", Labels: map[string]string{LabelRole: RoleIstioSystem}},
	{Name: "istio-ingress", Labels: map[string]string{LabelRole: RoleIstioIngress}},
	{Name: "istio-ingress-handler-internal", Labels: map[string]string{LabelExposureClassHandler: "internal"}},
	{Name: "shoot--dev--a", Labels: map[string]string{LabelRole: RoleShoot}, Shoot: shootNetworks},
	{Name: "extension-provider-local-x2f4q", Labels: map[string]string{LabelRole: RoleExtension}},
	{Name: "foo", Labels: map[string]string{"app": "foo"}},
}

// kubernetesSlice is the `kubernetes` EndpointSlice of a cluster with two API servers.
func kubernetesSlice(ready ...bool) unstructured.Unstructured {
	var endpoints []any
	for i, r := range ready {
		endpoints = append(endpoints, map[string]any{
			"addresses":  []any{[]string{"10.2.0.11", "10.2.0.12", "10.2.0.13"}[i]},
			"conditions": map[string]any{"ready": r},
		})
	}
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":    map[string]any{"name": "kubernetes", "namespace": "default", "labels": map[string]any{serviceNameLabel: "kubernetes"}},
		"addressType": "IPv4",
		"endpoints":   endpoints,
		"ports":       []any{map[string]any{"name": "https", "port": int64(443), "protocol": "TCP"}},
	}}
}

// listing serves the given EndpointSlices of cluster seed and records what was listed.
func listing(t *testing.T, items ...unstructured.Unstructured) render.Input {
	return render.Input{List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		assert.Equal(t, render.ListRef{Cluster: "seed", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices",
			Namespace: "default", LabelSelector: "kubernetes.io/service-name=kubernetes"}, ref)
		return items, nil
	}}
}

func TestRenderGolden(t *testing.T) {
	in := listing(t, kubernetesSlice(true, true))
	in.Config = rendertest.JSONConfigOf(t, Type, `{
		"cluster": {"name": "seed"},
		"networks": {"pods": "10.0.0.0/16", "services": "10.1.0.0/16", "nodes": "10.2.0.0/16", "block_cidrs": ["169.254.169.254/32"]},
		"namespace": [
			{"name": "garden"},
			{"name": "istio-ingress", "labels": {"gardener.cloud/role": "istio-ingress"}},
			{"name": "istio-ingress-handler-internal", "labels": {"handler.exposureclass.gardener.cloud/name": "internal"}},
			{"name": "shoot--dev--a", "labels": {"gardener.cloud/role": "shoot"}, "shoot": {"cidrs": ["172.16.64.0/18", "10.150.0.0/16", "192.168.128.0/17"]}},
			{"name": "foo"}
		]
	}`)
	out, err := Type.RenderConfig(in)
	require.NoError(t, err)
	golden.Assert(t, "seed", out.Objects)
}

// TestPoliciesPerNamespace checks which policies go into which namespace, as Gardener's test of
// the controller expects them.
func TestPoliciesPerNamespace(t *testing.T) {
	all := []string{DenyAll, AllowToRuntimeAPIServer, AllowToPublicNetworks, AllowToPrivateNetworks, AllowToBlockedCIDRs, AllowToDNS}
	want := map[string][]string{
		"garden":                         all,
		"shoot--dev--a":                  all,
		"extension-provider-local-x2f4q": all,
		"istio-system":                   {DenyAll, AllowToRuntimeAPIServer, AllowToDNS},
		"istio-ingress":                  {DenyAll, AllowToRuntimeAPIServer, AllowToDNS},
		"istio-ingress-handler-internal": {DenyAll, AllowToDNS},
	}
	objs, err := Objects(Values{Cluster: decode.Cluster{Name: "seed"}, Networks: seedNetworks, Namespaces: namespaces}, APIServer{})
	require.NoError(t, err)
	got := map[string][]string{}
	for _, o := range objs {
		assert.Equal(t, "seed", o.Cluster)
		assert.Equal(t, "NetworkPolicy", o.Object.GetKind())
		assert.Equal(t, "networking.k8s.io/v1", o.Object.GetAPIVersion())
		assert.NotEmpty(t, o.Object.GetAnnotations()[AnnotationDescription], "every policy says what it is for")
		got[o.Object.GetNamespace()] = append(got[o.Object.GetNamespace()], o.Object.GetName())
	}
	assert.Equal(t, want, got, "namespace foo, which no selector matches, gets nothing")
}

// policyOf renders one policy into a namespace, as unstructured fields.
func policyOf(t *testing.T, n Networks, api APIServer, ns Namespace, name string) map[string]any {
	t.Helper()
	objs, err := Objects(Values{Cluster: decode.Cluster{Name: "seed"}, Networks: n, Namespaces: []Namespace{ns}}, api)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetName() == name {
			return o.Object.Object
		}
	}
	require.Failf(t, "policy missing", "%s in %s", name, ns.Name)
	return nil
}

// spec reads a policy's spec as JSON-shaped values.
func spec(p map[string]any) map[string]any { return p["spec"].(map[string]any) }

func blocks(rule any) []map[string]any {
	var out []map[string]any
	for _, peer := range rule.(map[string]any)["to"].([]any) {
		out = append(out, peer.(map[string]any)["ipBlock"].(map[string]any))
	}
	return out
}

func TestDenyAll(t *testing.T) {
	s := spec(policyOf(t, seedNetworks, APIServer{}, Namespace{Name: "garden"}, DenyAll))
	assert.Equal(t, map[string]any{"podSelector": map[string]any{}, "policyTypes": []any{"Ingress", "Egress"}}, s,
		"every pod, both directions, no rule")
}

func TestPrivateNetworks(t *testing.T) {
	private := func(ns Namespace, n Networks) [][]map[string]any {
		var out [][]map[string]any
		for _, rule := range spec(policyOf(t, n, APIServer{}, ns, AllowToPrivateNetworks))["egress"].([]any) {
			out = append(out, blocks(rule))
		}
		return out
	}
	v6 := []map[string]any{{"cidr": "fe80::/10"}, {"cidr": "fc00::/7"}}
	seedOwn := []any{"10.0.0.0/16", "10.1.0.0/16", "10.2.0.0/16"}
	tests := []struct {
		name string
		ns   Namespace
		n    Networks
		want [][]map[string]any
	}{
		{
			name: "the seed's own networks are left out; the blocked CIDR lies in no private range",
			ns:   Namespace{Name: "garden"}, n: seedNetworks,
			want: [][]map[string]any{{
				{"cidr": "10.0.0.0/8", "except": seedOwn}, {"cidr": "172.16.0.0/12"}, {"cidr": "192.168.0.0/16"}, {"cidr": "100.64.0.0/10"},
			}, v6},
		},
		{
			name: "a shoot's namespace also leaves out the shoot's networks",
			ns:   Namespace{Name: "shoot--dev--a", Labels: map[string]string{LabelRole: RoleShoot}, Shoot: shootNetworks}, n: seedNetworks,
			want: [][]map[string]any{{
				{"cidr": "10.0.0.0/8", "except": append(append([]any(nil), seedOwn...), "10.150.0.0/16")},
				{"cidr": "172.16.0.0/12", "except": []any{"172.16.64.0/18"}},
				{"cidr": "192.168.0.0/16", "except": []any{"192.168.128.0/17"}},
				{"cidr": "100.64.0.0/10"},
			}, v6},
		},
		{
			name: "the shoot's networks only count in a namespace named like a shoot's",
			ns:   Namespace{Name: "extension-x", Labels: map[string]string{LabelRole: RoleExtension}, Shoot: shootNetworks}, n: seedNetworks,
			want: [][]map[string]any{{
				{"cidr": "10.0.0.0/8", "except": seedOwn}, {"cidr": "172.16.0.0/12"}, {"cidr": "192.168.0.0/16"}, {"cidr": "100.64.0.0/10"},
			}, v6},
		},
		{
			name: "a dual-stack seed leaves out only its blocked CIDRs",
			ns:   Namespace{Name: "garden"},
			n:    Networks{Pods: "10.0.0.0/16", Services: "10.1.0.0/16", BlockCIDRs: []string{"10.9.0.0/16"}, IPFamilies: []string{IPv4, IPv6}},
			want: [][]map[string]any{{
				{"cidr": "10.0.0.0/8", "except": []any{"10.9.0.0/16"}}, {"cidr": "172.16.0.0/12"}, {"cidr": "192.168.0.0/16"}, {"cidr": "100.64.0.0/10"},
			}, v6},
		},
		{
			name: "an IPv6 shoot's networks go to the IPv6 rule",
			ns: Namespace{Name: "shoot--dev--b", Labels: map[string]string{LabelRole: RoleShoot},
				Shoot: &ShootNetworks{CIDRs: []string{"fd00:10::/64"}, IPFamilies: []string{IPv6}}},
			n: seedNetworks,
			want: [][]map[string]any{{
				{"cidr": "10.0.0.0/8", "except": seedOwn}, {"cidr": "172.16.0.0/12"}, {"cidr": "192.168.0.0/16"}, {"cidr": "100.64.0.0/10"},
			}, {{"cidr": "fe80::/10"}, {"cidr": "fc00::/7", "except": []any{"fd00:10::/64"}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, private(tt.ns, tt.n))
		})
	}
}

func TestPublicNetworks(t *testing.T) {
	public := func(n Networks) []map[string]any {
		egress := spec(policyOf(t, n, APIServer{}, Namespace{Name: "garden"}, AllowToPublicNetworks))["egress"].([]any)
		require.Len(t, egress, 1, "one rule for both families")
		return blocks(egress[0])
	}
	assert.Equal(t, []map[string]any{
		{"cidr": "0.0.0.0/0", "except": []any{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.169.254/32"}},
		{"cidr": "::/0", "except": []any{"fe80::/10", "fc00::/7"}},
	}, public(seedNetworks), "an IPv4 seed's networks lie in the private ranges; only the blocked CIDR is added")
	assert.Equal(t, []map[string]any{
		{"cidr": "0.0.0.0/0", "except": []any{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"}},
		{"cidr": "::/0", "except": []any{"fe80::/10", "fc00::/7", "2001:db8:1::/48", "2001:db8:2::/108", "2001:db8:3::/64"}},
	}, public(Networks{Pods: "2001:db8:1::/48", Services: "2001:db8:2::/108", Nodes: "2001:db8:3::/64", IPFamilies: []string{IPv6}}),
		"an IPv6 seed's own networks may be public addresses and are left out")
}

func TestBlockedCIDRs(t *testing.T) {
	n := seedNetworks
	n.BlockCIDRs = []string{"169.254.169.254/32", "2001:db8::/32"}
	s := spec(policyOf(t, n, APIServer{}, Namespace{Name: "garden"}, AllowToBlockedCIDRs))
	assert.Equal(t, map[string]any{"networking.gardener.cloud/to-blocked-cidrs": "allowed"}, s["podSelector"].(map[string]any)["matchLabels"])
	assert.Equal(t, []any{
		map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "169.254.169.254/32"}}}},
		map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "2001:db8::/32"}}}},
	}, s["egress"], "one rule per blocked CIDR")

	n.BlockCIDRs = nil
	s = spec(policyOf(t, n, APIServer{}, Namespace{Name: "garden"}, AllowToBlockedCIDRs))
	assert.NotContains(t, s, "egress", "without blocked CIDRs the policy opens nothing")
	assert.Equal(t, []any{"Egress"}, s["policyTypes"])
}

func TestDNS(t *testing.T) {
	s := spec(policyOf(t, seedNetworks, APIServer{}, Namespace{Name: "garden"}, AllowToDNS))
	assert.Equal(t, map[string]any{"networking.gardener.cloud/to-dns": "allowed"}, s["podSelector"].(map[string]any)["matchLabels"])
	rule := s["egress"].([]any)[0].(map[string]any)
	kubeSystemPods := func(app string) map[string]any {
		return map[string]any{
			"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "kube-system"}},
			"podSelector":       map[string]any{"matchExpressions": []any{map[string]any{"key": "k8s-app", "operator": "In", "values": []any{app}}}},
		}
	}
	assert.Equal(t, []any{
		kubeSystemPods("kube-dns"), kubeSystemPods("node-local-dns"),
		map[string]any{"ipBlock": map[string]any{"cidr": "169.254.20.10/32"}},
		map[string]any{"ipBlock": map[string]any{"cidr": "fd30:1319:f1e:230b::1/128"}},
		map[string]any{"ipBlock": map[string]any{"cidr": "10.1.0.10/32"}},
	}, rule["to"], "CoreDNS, node-local-dns and the tenth address of the service network")
	assert.Equal(t, []any{
		map[string]any{"protocol": "UDP", "port": int64(53)}, map[string]any{"protocol": "TCP", "port": int64(53)},
		map[string]any{"protocol": "UDP", "port": int64(8053)}, map[string]any{"protocol": "TCP", "port": int64(8053)},
	}, rule["ports"])
}

func TestRuntimeAPIServer(t *testing.T) {
	read := func(in render.Input) map[string]any {
		in.Config = rendertest.JSONConfigOf(t, Type, `{"cluster": {"name": "seed"}, "networks": {"pods": "10.0.0.0/16", "services": "10.1.0.0/16"}, "namespace": [{"name": "garden"}]}`)
		out, err := Type.RenderConfig(in)
		require.NoError(t, err)
		for _, o := range out.Objects {
			if o.Object.GetName() == AllowToRuntimeAPIServer {
				return spec(o.Object.Object)
			}
		}
		require.Fail(t, "no allow-to-runtime-apiserver")
		return nil
	}
	s := read(listing(t, kubernetesSlice(true, false, true)))
	assert.Equal(t, map[string]any{"networking.gardener.cloud/to-runtime-apiserver": "allowed"}, s["podSelector"].(map[string]any)["matchLabels"])
	assert.Equal(t, []any{map[string]any{
		"to": []any{
			map[string]any{"ipBlock": map[string]any{"cidr": "10.2.0.11/32"}},
			map[string]any{"ipBlock": map[string]any{"cidr": "10.2.0.13/32"}},
		},
		"ports": []any{map[string]any{"protocol": "TCP", "port": int64(443)}},
	}}, s["egress"], "the ready API servers' addresses, on their port")

	for name, in := range map[string]render.Input{
		"a cluster without the EndpointSlice (the local control plane)": listing(t),
		"a run without clusters to read (graph, validate)":              {},
		"an EndpointSlice without a ready endpoint":                     listing(t, kubernetesSlice(false)),
	} {
		t.Run(name, func(t *testing.T) {
			s := read(in)
			assert.NotContains(t, s, "egress", "no address is known, so the policy opens nothing")
			assert.Equal(t, []any{"Egress"}, s["policyTypes"])
		})
	}
}

func TestClusterDNSAddress(t *testing.T) {
	for services, want := range map[string]string{
		"10.1.0.0/16":     "10.1.0.10/32",
		"100.64.0.0/13":   "100.64.0.10/32",
		"10.96.0.0/28":    "10.96.0.10/32",
		"fd00:10:2::/112": "fd00:10:2::a/128",
		"10.1.5.3/16":     "10.1.0.10/32", // the network's address, not the one written
	} {
		got, err := clusterDNSAddress(services)
		require.NoError(t, err, services)
		assert.Equal(t, want, got, services)
	}
	for _, services := range []string{"10.96.0.0/29", "10.96.0.8/30", "no-cidr"} { // the first two have fewer than 11 addresses
		_, err := clusterDNSAddress(services)
		assert.Error(t, err, services)
	}
}

func TestObjectsRefuses(t *testing.T) {
	_, err := Objects(Values{Networks: seedNetworks, Namespaces: namespaces}, APIServer{})
	assert.ErrorContains(t, err, "cluster is required")
	_, err = Objects(Values{Cluster: decode.Cluster{Name: "seed"}, Networks: seedNetworks, Namespaces: []Namespace{{Name: "garden"}, {Name: "garden"}}}, APIServer{})
	assert.ErrorContains(t, err, "named twice")
	_, err = Objects(Values{Cluster: decode.Cluster{Name: "seed"}, Networks: Networks{Pods: "10.0.0.0/16"}, Namespaces: []Namespace{{Name: "garden"}}}, APIServer{})
	assert.ErrorContains(t, err, "no service network")
}
