package networkpolicies

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Labels and values the controller selects namespaces and pods by
// (pkg/apis/core/v1beta1/constants/types_constants.go in gardener/gardener v1.120.0).
const (
	// LabelRole is the namespace label gardener.cloud/role, with the roles below.
	LabelRole        = "gardener.cloud/role"
	RoleShoot        = "shoot"
	RoleIstioSystem  = "istio-system"
	RoleIstioIngress = "istio-ingress"
	RoleExtension    = "extension"
	// LabelExposureClassHandler marks the namespace of an ExposureClass handler's gateway; the
	// controller selects such namespaces by the key alone.
	LabelExposureClassHandler = "handler.exposureclass.gardener.cloud/name"
	// LabelNamespaceName is the label the API server gives every namespace, its name.
	LabelNamespaceName = "kubernetes.io/metadata.name"
	// GardenNamespace is the namespace the controller selects by name.
	GardenNamespace = "garden"
	// ShootNamespacePrefix starts the names of namespaces whose allow-to-private-networks leaves
	// out the networks of the shoot whose control plane they hold (TechnicalIDPrefix: one dash).
	ShootNamespacePrefix = "shoot-"
	// AnnotationDescription says what a policy is for.
	AnnotationDescription = "gardener.cloud/description"

	// The pod labels the policies select, each with the value Allowed.
	LabelToRuntimeAPIServer = "networking.gardener.cloud/to-runtime-apiserver"
	LabelToPublicNetworks   = "networking.gardener.cloud/to-public-networks"
	LabelToPrivateNetworks  = "networking.gardener.cloud/to-private-networks"
	LabelToBlockedCIDRs     = "networking.gardener.cloud/to-blocked-cidrs"
	LabelToDNS              = "networking.gardener.cloud/to-dns"
	Allowed                 = "allowed"
)

// The names of the policies, in the order the controller reconciles them
// (pkg/controller/networkpolicy/reconciler.go in gardener/gardener v1.120.0).
const (
	DenyAll                 = "deny-all"
	AllowToRuntimeAPIServer = "allow-to-runtime-apiserver"
	AllowToPublicNetworks   = "allow-to-public-networks"
	AllowToPrivateNetworks  = "allow-to-private-networks"
	AllowToBlockedCIDRs     = "allow-to-blocked-cidrs"
	AllowToDNS              = "allow-to-dns"
)

// Cluster DNS as the DNS policy reaches it: CoreDNS and node-local-dns pods in kube-system by
// their k8s-app label, node-local-dns's link-local addresses, and the DNS ports of the Service
// and of the pods (pkg/component/networking/coredns/constants and
// pkg/component/networking/nodelocaldns/constants in gardener/gardener v1.120.0).
const (
	dnsPodLabel        = "k8s-app"
	coreDNSValue       = "kube-dns"
	nodeLocalDNSValue  = "node-local-dns"
	nodeLocalDNSIPv4   = "169.254.20.10/32"
	nodeLocalDNSIPv6   = "fd30:1319:f1e:230b::1/128"
	dnsServicePort     = 53
	dnsPodPort         = 8053
	kubeSystem         = "kube-system"
	dnsServiceIPOffset = 10
)

// Namespace is a namespace the policies are rendered for.
type Namespace struct {
	Name string `json:"name"`
	// Labels are the namespace's labels; LabelNamespaceName, which the API server sets, need not
	// be among them.
	Labels map[string]string `json:"labels"`
	// Shoot is, for a namespace holding a shoot's control plane, the shoot's networks as its
	// Cluster resource shows them (the Shoot's .spec.networking and .status.networking); nil
	// when there is no such Cluster or it names no networks.
	Shoot *ShootNetworks `json:"shoot"`
}

// ShootNetworks are a shoot's networks, which allow-to-private-networks leaves out in its
// control-plane namespace.
type ShootNetworks struct {
	// CIDRs are the shoot's node, pod and service networks from its specification, then those
	// of its status not among them.
	CIDRs []string `json:"cidrs"`
	// IPFamilies are the shoot's IP families (.spec.networking.ipFamilies); none means IPv4.
	IPFamilies []string `json:"ip_families"`
}

// selector decides whether a namespace with these labels gets a policy.
type selector func(labels map[string]string) bool

func named(name string) selector {
	return func(l map[string]string) bool { return l[LabelNamespaceName] == name }
}

func role(r string) selector {
	return func(l map[string]string) bool { return l[LabelRole] == r }
}

func labelled(key string) selector {
	return func(l map[string]string) bool { _, ok := l[key]; return ok }
}

// policy is one of the controller's policies: the namespaces it goes into and its specification.
type policy struct {
	name        string
	namespaces  []selector
	description string
	spec        func(r *renderer, ns Namespace) (networkingv1.NetworkPolicySpec, error)
}

// allowed selects the pods labelled key=allowed.
func allowed(key string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{key: Allowed}}
}

// egressOnly are the policy types of every policy but deny-all.
var egressOnly = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}

// policies are the controller's policies in its order, each with the namespaces it selects
// (pkg/controller/networkpolicy/reconciler.go in gardener/gardener v1.120.0). No
// additionalNamespaceSelectors are configured: the engine's gardenlet has none.
var policies = []policy{
	{
		name: DenyAll,
		namespaces: []selector{named(GardenNamespace), role(RoleShoot), role(RoleIstioSystem), role(RoleIstioIngress), role(RoleExtension),
			labelled(LabelExposureClassHandler)},
		description: "Disables all ingress and egress traffic into/from this namespace.",
		spec: func(*renderer, Namespace) (networkingv1.NetworkPolicySpec, error) {
			return networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			}, nil
		},
	},
	{
		name:       AllowToRuntimeAPIServer,
		namespaces: []selector{named(GardenNamespace), role(RoleIstioSystem), role(RoleIstioIngress), role(RoleShoot), role(RoleExtension)},
		description: fmt.Sprintf("Allows egress traffic from pods labeled with '%s=%s' to the endpoints in the default namespace "+
			"of the kube-apiserver of the runtime cluster.", LabelToRuntimeAPIServer, Allowed),
		spec: (*renderer).runtimeAPIServer,
	},
	{
		name:       AllowToPublicNetworks,
		namespaces: []selector{named(GardenNamespace), role(RoleShoot), role(RoleExtension)},
		description: fmt.Sprintf("Allows egress from pods labeled with '%s=%s' to all public network IPs, except for private "+
			"networks (RFC1918), carrier-grade NAT (RFC6598), and explicitly blocked addresses configured by human operators. "+
			"In practice, this blocks egress traffic to all networks in the cluster and only allows egress traffic to public "+
			"IPv4 addresses.", LabelToPublicNetworks, Allowed),
		spec: (*renderer).publicNetworks,
	},
	{
		name:       AllowToPrivateNetworks,
		namespaces: []selector{named(GardenNamespace), role(RoleShoot), role(RoleExtension)},
		description: fmt.Sprintf("Allows egress from pods labeled with '%s=%s' to the private networks (RFC1918) and "+
			"carrier-grade NAT (RFC6598), except for cluster-specific networks.", LabelToPrivateNetworks, Allowed),
		spec: (*renderer).privateNetworks,
	},
	{
		name:       AllowToBlockedCIDRs,
		namespaces: []selector{named(GardenNamespace), role(RoleShoot), role(RoleExtension)},
		description: fmt.Sprintf("Allows egress from pods labeled with '%s=%s' to explicitly blocked addresses configured by "+
			"human operators.", LabelToBlockedCIDRs, Allowed),
		spec: (*renderer).blockedCIDRs,
	},
	{
		name: AllowToDNS,
		namespaces: []selector{named(GardenNamespace), role(RoleShoot), role(RoleExtension), role(RoleIstioSystem), role(RoleIstioIngress),
			labelled(LabelExposureClassHandler)},
		description: fmt.Sprintf("Allows egress from pods labeled with '%s=%s' to DNS running in '%s'. In practice, most of "+
			"the pods which require network egress need this label.", LabelToDNS, Allowed, kubeSystem),
		spec: (*renderer).dns,
	},
}

// Selected reports whether any policy goes into a namespace with these labels (its name among
// them as LabelNamespaceName).
func Selected(labels map[string]string) bool {
	for _, p := range policies {
		if p.selects(labels) {
			return true
		}
	}
	return false
}

func (p policy) selects(labels map[string]string) bool {
	for _, s := range p.namespaces {
		if s(labels) {
			return true
		}
	}
	return false
}

// labelsOf are a namespace's labels as the API server keeps them: with its name.
func labelsOf(ns Namespace) map[string]string {
	out := make(map[string]string, len(ns.Labels)+1)
	for k, v := range ns.Labels {
		out[k] = v
	}
	out[LabelNamespaceName] = ns.Name
	return out
}

// renderer renders the policies of one cluster.
type renderer struct {
	networks  Networks
	apiServer APIServer
}

// policiesFor renders the policies that go into ns, in the controller's order.
func (r *renderer) policiesFor(ns Namespace) ([]*networkingv1.NetworkPolicy, error) {
	labels := labelsOf(ns)
	var out []*networkingv1.NetworkPolicy
	for _, p := range policies {
		if !p.selects(labels) {
			continue
		}
		spec, err := p.spec(r, ns)
		if err != nil {
			return nil, fmt.Errorf("NetworkPolicy %s/%s: %w", ns.Name, p.name, err)
		}
		out = append(out, &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ns.Name, Name: p.name,
				Annotations: map[string]string{AnnotationDescription: p.description},
			},
			Spec: spec,
		})
	}
	return out, nil
}

// runtimeAPIServer opens the cluster's API server endpoints: one rule with every address and
// every port, as the controller makes one rule of the one subset of the `kubernetes` Endpoints
// (the host-name resolver it adds addresses from is a no-op for a gardenlet inside its seed, which
// reaches its API server by IP). Without addresses there is no rule, and the policy opens nothing.
func (r *renderer) runtimeAPIServer(Namespace) (networkingv1.NetworkPolicySpec, error) {
	spec := networkingv1.NetworkPolicySpec{PodSelector: allowed(LabelToRuntimeAPIServer), PolicyTypes: egressOnly}
	if len(r.apiServer.Addresses) == 0 {
		return spec, nil
	}
	var rule networkingv1.NetworkPolicyEgressRule
	for _, a := range r.apiServer.Addresses {
		cidr, err := hostCIDR(a)
		if err != nil {
			return spec, err
		}
		rule.To = append(rule.To, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr}})
	}
	for _, p := range r.apiServer.Ports {
		rule.Ports = append(rule.Ports, networkingv1.NetworkPolicyPort{
			Protocol: ptr.To(corev1.Protocol(p.Protocol)), Port: ptr.To(intstr.FromInt32(p.Port)),
		})
	}
	spec.Egress = []networkingv1.NetworkPolicyEgressRule{rule}
	return spec, nil
}

// publicNetworks opens every address but the private ranges and the blocked CIDRs; for IPv6 also
// but the cluster's own networks where the cluster is IPv6 single-stack, since IPv6 cluster
// networks may be public addresses (IPv4 ones lie in the private ranges anyway).
func (r *renderer) publicNetworks(Namespace) (networkingv1.NetworkPolicySpec, error) {
	v4, err := ipBlocks([]string{"0.0.0.0/0"}, append(append([]string(nil), privateV4...), r.networks.BlockCIDRs...))
	if err != nil {
		return networkingv1.NetworkPolicySpec{}, err
	}
	v6, err := ipBlocks([]string{"::/0"}, append(append([]string(nil), privateV6...), r.networks.blocked(IPv6)...))
	if err != nil {
		return networkingv1.NetworkPolicySpec{}, err
	}
	return networkingv1.NetworkPolicySpec{
		PodSelector: allowed(LabelToPublicNetworks),
		Egress:      []networkingv1.NetworkPolicyEgressRule{{To: peers(append(v4, v6...))}},
		PolicyTypes: egressOnly,
	}, nil
}

// privateNetworks opens the private ranges but the blocked CIDRs, the cluster's own networks
// (where it is single-stack) and, in a shoot's control-plane namespace, the shoot's networks: one
// rule for IPv4, one for IPv6.
func (r *renderer) privateNetworks(ns Namespace) (networkingv1.NetworkPolicySpec, error) {
	blockedV4, blockedV6 := r.networks.blocked(IPv4), r.networks.blocked(IPv6)
	if strings.HasPrefix(ns.Name, ShootNamespacePrefix) && ns.Shoot != nil {
		if ipv4SingleStack(ns.Shoot.IPFamilies) {
			blockedV4 = append(blockedV4, ns.Shoot.CIDRs...)
		} else {
			blockedV6 = append(blockedV6, ns.Shoot.CIDRs...)
		}
	}
	v4, err := ipBlocks(privateV4, blockedV4)
	if err != nil {
		return networkingv1.NetworkPolicySpec{}, err
	}
	v6, err := ipBlocks(privateV6, blockedV6)
	if err != nil {
		return networkingv1.NetworkPolicySpec{}, err
	}
	return networkingv1.NetworkPolicySpec{
		PodSelector: allowed(LabelToPrivateNetworks),
		Egress:      []networkingv1.NetworkPolicyEgressRule{{To: peers(v4)}, {To: peers(v6)}},
		PolicyTypes: egressOnly,
	}, nil
}

// ipv4SingleStack reports whether a shoot with these IP families is IPv4 single-stack; a shoot
// naming none is.
func ipv4SingleStack(families []string) bool {
	return len(families) == 0 || (len(families) == 1 && families[0] == IPv4)
}

// blockedCIDRs opens the blocked CIDRs, one rule each.
func (r *renderer) blockedCIDRs(Namespace) (networkingv1.NetworkPolicySpec, error) {
	spec := networkingv1.NetworkPolicySpec{PodSelector: allowed(LabelToBlockedCIDRs), PolicyTypes: egressOnly}
	for _, c := range r.networks.BlockCIDRs {
		spec.Egress = append(spec.Egress, networkingv1.NetworkPolicyEgressRule{
			To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: c}}},
		})
	}
	return spec, nil
}

// dns opens the cluster's DNS: CoreDNS and node-local-dns in kube-system, node-local-dns's
// addresses and the DNS Service's address, on the DNS ports.
func (r *renderer) dns(Namespace) (networkingv1.NetworkPolicySpec, error) {
	if r.networks.Services == "" {
		return networkingv1.NetworkPolicySpec{}, fmt.Errorf("the cluster has no service network")
	}
	service, err := clusterDNSAddress(r.networks.Services)
	if err != nil {
		return networkingv1.NetworkPolicySpec{}, err
	}
	inKubeSystem := func(app string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelNamespaceName: kubeSystem}},
			PodSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: dnsPodLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{app},
			}}},
		}
	}
	block := func(cidr string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr}}
	}
	port := func(protocol corev1.Protocol, number int32) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Protocol: ptr.To(protocol), Port: ptr.To(intstr.FromInt32(number))}
	}
	return networkingv1.NetworkPolicySpec{
		PodSelector: allowed(LabelToDNS),
		Egress: []networkingv1.NetworkPolicyEgressRule{{
			To: []networkingv1.NetworkPolicyPeer{
				inKubeSystem(coreDNSValue), inKubeSystem(nodeLocalDNSValue),
				block(nodeLocalDNSIPv4), block(nodeLocalDNSIPv6), block(service),
			},
			Ports: []networkingv1.NetworkPolicyPort{
				port(corev1.ProtocolUDP, dnsServicePort), port(corev1.ProtocolTCP, dnsServicePort),
				port(corev1.ProtocolUDP, dnsPodPort), port(corev1.ProtocolTCP, dnsPodPort),
			},
		}},
		PolicyTypes: egressOnly,
	}, nil
}

// peers turns ipBlocks into policy peers.
func peers(blocks []ipBlock) []networkingv1.NetworkPolicyPeer {
	out := make([]networkingv1.NetworkPolicyPeer, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: b.CIDR, Except: b.Except}})
	}
	return out
}
