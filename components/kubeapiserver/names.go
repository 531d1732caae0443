package kubeapiserver

import (
	"fmt"
	"strings"

	"github.com/declarative-gardener/gardener/components/etcd"
)

// Port is the port the API server serves on, in the pod and on its Service (Gardener's "Network
// Policies" docs/operations/network_policies.md: to-garden-virtual-garden-kube-apiserver-tcp-443).
const Port = 443

// Defaults of the Istio exposure (the schema's, schema.go). The istio component creates the
// ingress gateway; these are the names it uses (Gardener's "Gardener Operator"
// docs/concepts/operator.md), repeated here so that this package does not depend on it.
const (
	DefaultIngressGatewayNamespace = "virtual-garden-istio-ingress"
	DefaultClusterDomain           = "cluster.local"
)

// DefaultIngressGatewayLabels select the istio-ingressgateway pods (Istio's conventional labels).
func DefaultIngressGatewayLabels() map[string]string {
	return map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}
}

// Name is the name of the Deployment, Service, HPA, PDB and Istio objects: <prefix>kube-apiserver
// (virtual-garden-kube-apiserver, Gardener's docs/concepts/operator.md).
func Name(prefix string) string { return prefix + "kube-apiserver" }

// ServiceName is the name of the API server's ClusterIP Service (Gardener's
// docs/concepts/operator.md).
func ServiceName(prefix string) string { return Name(prefix) }

// AppLabel is the app label of a control plane's pods: the prefix without its trailing dash
// ("virtual-garden"), or "kubernetes" for a shoot control plane without prefix (Gardener's shoot
// convention; Gardener's documentation does not name the labels).
func AppLabel(prefix string) string {
	if p := strings.TrimSuffix(prefix, "-"); p != "" {
		return p
	}
	return "kubernetes"
}

// SelectorLabels select the API server's pods.
func SelectorLabels(prefix string) map[string]string {
	return map[string]string{"app": AppLabel(prefix), "role": "apiserver"}
}

// InternalEndpoint is the URL in-cluster clients (kube-controller-manager, gardener components)
// reach the API server at through its Service (Gardener's "Topology Aware Routing"
// docs/operations/topology_aware_routing.md).
func InternalEndpoint(prefix, namespace string) string {
	return fmt.Sprintf("https://%s.%s.svc", ServiceName(prefix), namespace)
}

// Hosts are the names the API server is exposed under through Istio: api.<domain> for every
// domain, and for the virtual garden (any name prefix) also gardener.<domain>, the DNS records
// Gardener's documentation asks operators to create (Gardener's docs/concepts/operator.md). A
// shoot's API server (no prefix) is api.<domain> only (Gardener's "Control Plane Endpoints And
// Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md).
func Hosts(prefix string, domains []string) []string {
	prefixes := []string{"api."}
	if prefix != "" {
		prefixes = append(prefixes, "gardener.")
	}
	var out []string
	for _, p := range prefixes {
		for _, d := range domains {
			out = append(out, p+d)
		}
	}
	return out
}

// ExternalHostname is api.<first domain>, used in kubeconfigs and for --external-hostname
// (Gardener's docs/concepts/operator.md).
func ExternalHostname(domains []string) string {
	if len(domains) == 0 {
		return ""
	}
	return "api." + domains[0]
}

// ServerDNSNames are the names the serving certificate must cover: the in-cluster names of the
// Service, of the virtual cluster's own kubernetes Service, and the exposed hosts.
func ServerDNSNames(prefix, namespace, clusterDomain string, domains []string) []string {
	svc, ns := ServiceName(prefix), namespace
	out := []string{svc, svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc." + clusterDomain,
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + clusterDomain}
	return append(out, Hosts(prefix, domains)...)
}

// ToServiceLabel is the pod label that gardener-resource-manager's NetworkPolicy controller
// turns into an egress permission to a Service in the same namespace (Gardener's "Gardener Resource
// Manager" docs/concepts/resource-manager.md).
func ToServiceLabel(service string, port int) string {
	return fmt.Sprintf("networking.resources.gardener.cloud/to-%s-tcp-%d", service, port)
}

// etcdLabels are the egress labels to the default etcd client Services.
func etcdLabels(prefix string) map[string]string {
	return map[string]string{
		ToServiceLabel(etcd.ClientServiceName(prefix, etcd.RoleMain), etcd.ClientPort):   "allowed",
		ToServiceLabel(etcd.ClientServiceName(prefix, etcd.RoleEvents), etcd.ClientPort): "allowed",
	}
}
