package kubeapiserver

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/declarative-gardener/gardener/components/etcd"
)

// Port is the port the API server serves on, in the pod and on its Service (Gardener's "Network
// Policies" docs/operations/network_policies.md: to-garden-virtual-garden-kube-apiserver-tcp-443).
const Port = 443

// DefaultClusterDomain is the runtime cluster's DNS domain unless the schema's cluster_domain
// says otherwise.
const DefaultClusterDomain = "cluster.local"

// The names of the objects besides the Deployment's (Name), as Gardener's kube-apiserver
// component names them (pkg/component/kubernetes/apiserver/configmaps.go and secrets.go at
// Gardener v1.120.0), without the name prefix, so that the virtual garden's carry the same names
// as a shoot's. The configuration ConfigMaps and the admission kubeconfigs are unique: the
// prefix and a checksum of their data (kube.UniqueName).
const (
	AdmissionConfigMapPrefix            = "kube-apiserver-admission-config"
	AuditPolicyConfigMapPrefix          = "audit-policy-config"
	AuthorizationConfigMapPrefix        = "kube-apiserver-authorization-config"
	EgressSelectorConfigMapPrefix       = "kube-apiserver-egress-selector-config"
	AdmissionKubeconfigsSecretPrefix    = "kube-apiserver-admission-kubeconfigs"
	AuthorizationKubeconfigsSecretName  = "kube-apiserver-authorization-webhooks-kubeconfigs"
	StaticTokenSecretName               = "kube-apiserver-static-token"
	DefaultHealthCheckTokenSecretName   = "kube-apiserver-health-check-token"
	KubeletClientSecretName             = "kube-apiserver-kubelet"
	HTTPProxySecretName                 = "kube-apiserver-http-proxy"
	VPNSeedClientSecretName             = "vpn-seed-client"
	vpnClientInitRoleName               = "kube-apiserver-vpn-client-init"
	containerName                       = "kube-apiserver"
	healthCheckUser                     = "health-check"
	mutatedByControlPlaneWebhookLabel   = "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"
	highAvailabilityConfigTypeLabel     = "high-availability-config.resources.gardener.cloud/type"
	highAvailabilityConfigTypeServer    = "server"
	networkPolicyAllowed                = "allowed"
	labelToRuntimeAPIServer             = "networking.gardener.cloud/to-runtime-apiserver"
	labelToAllWebhookTargets            = "networking.resources.gardener.cloud/to-all-webhook-targets"
	labelToExtensionsAllWebhookTargets  = "networking.resources.gardener.cloud/to-extensions-all-webhook-targets"
	shootNamespacePrefix                = "shoot-"
	vpnSeedServerName                   = "vpn-seed-server"
	vpnSeedServerEnvoyPort              = 9443
	vpnSeedServerOpenVPNPort            = 1194
	annotationPodLabelSelectorNamespace = "networking.resources.gardener.cloud/pod-label-selector-namespace-alias"
	annotationIstioExportTo             = "networking.istio.io/exportTo"
)

// KubeletClientCommonName, VPNSeedClientCommonName, HTTPProxyCommonName and
// AggregatorCommonName are the common names of the client certificates the composites generate
// for the API server (secrets.go at Gardener v1.120.0): the kubelet authorizes the first,
// vpn-seed-server the next two, aggregated API servers the last.
const (
	AggregatorCommonName    = "system:kube-aggregator"
	KubeletClientCommonName = "system:kube-apiserver:kubelet"
	VPNSeedClientCommonName = "vpn-seed-client"
	HTTPProxyCommonName     = "kube-apiserver-http-proxy"
)

// HealthCheckTokenLength is the length of the health-check user's token, as long as the static
// tokens Gardener's secrets manager generates (pkg/utils/secrets/static_token.go at Gardener
// v1.120.0).
const HealthCheckTokenLength = 128

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

// AppLabel is the app label of a control plane's pods, the virtual garden's as a shoot's: app=kubernetes
// with the component's role (getLabels in pkg/component/kubernetes/apiserver/apiserver.go,
// controllermanager/controllermanager.go and scheduler/scheduler.go at Gardener v1.120.0).
const AppLabel = "kubernetes"

// SelectorLabels select the API server's pods: app=kubernetes and role=apiserver, for the
// virtual garden's API server as for a shoot's (getLabels in
// pkg/component/kubernetes/apiserver/apiserver.go at Gardener v1.120.0).
func SelectorLabels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": "apiserver"}
}

// Labels are the labels of the Deployment's pods besides their network permissions: the selector
// and gardener.cloud/role=controlplane (GetLabels at Gardener v1.120.0).
func Labels() map[string]string {
	l := SelectorLabels()
	l["gardener.cloud/role"] = "controlplane"
	return l
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

// ServerDNSNames are the names the serving certificate must cover, as Gardener's kube-apiserver
// component asks its secrets manager for them (reconcileSecretServer in
// pkg/component/kubernetes/apiserver/secrets.go at Gardener v1.120.0): the in-cluster names of
// the Service; localhost where something in the pod calls the API server on loopback (loopback:
// the API server of a shoot exposed by SNI, or the HA VPN's path controller); the names of the
// cluster's own kubernetes Service where the cluster has nodes whose pods call it; and the
// exposed hosts.
func ServerDNSNames(prefix, namespace, clusterDomain string, domains []string, nodes, loopback bool) []string {
	out := serviceDNSNames(ServiceName(prefix), namespace, clusterDomain)
	if loopback {
		out = append(out, "localhost")
	}
	if nodes {
		out = append(out, serviceDNSNames("kubernetes", "default", clusterDomain)...)
	}
	return append(out, Hosts(prefix, domains)...)
}

// ServerIPAddresses are the addresses the serving certificate must cover besides its names: the
// loopback addresses where ServerDNSNames has localhost, and for a cluster with nodes the cluster
// IP of its kubernetes Service, the first address of the service network, which pods dial
// (computeKubeAPIServerServerCertificateConfig in pkg/gardenlet/operation/botanist/kubeapiserver.go
// at Gardener v1.120.0).
func ServerIPAddresses(serviceNetwork string, nodes, loopback bool) ([]string, error) {
	var out []string
	if loopback {
		out = append(out, "127.0.0.1", "::1")
	}
	if nodes {
		ip, err := KubernetesServiceIP(serviceNetwork)
		if err != nil {
			return nil, err
		}
		out = append(out, ip)
	}
	return out, nil
}

// KubernetesServiceIP is the cluster IP of a cluster's kubernetes Service: the first address of
// its service network, which kube-apiserver reserves for it.
func KubernetesServiceIP(serviceNetwork string) (string, error) {
	p, err := netip.ParsePrefix(serviceNetwork)
	if err != nil {
		return "", fmt.Errorf("service network %q: %w", serviceNetwork, err)
	}
	return p.Masked().Addr().Next().String(), nil
}

func serviceDNSNames(service, namespace, clusterDomain string) []string {
	return []string{service, service + "." + namespace, service + "." + namespace + ".svc", service + "." + namespace + ".svc." + clusterDomain}
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
		ToServiceLabel(etcd.ClientServiceName(prefix, etcd.RoleMain), etcd.ClientPort):   networkPolicyAllowed,
		ToServiceLabel(etcd.ClientServiceName(prefix, etcd.RoleEvents), etcd.ClientPort): networkPolicyAllowed,
	}
}

// etcdEndpoint is the URL of an etcd's client Service by its short name, which resolves in the
// API server's namespace, as Gardener writes --etcd-servers (InjectDefaultSettings in
// pkg/component/apiserver/deployment.go at Gardener v1.120.0).
func etcdEndpoint(prefix, role string) string {
	return fmt.Sprintf("https://%s:%d", etcd.ClientServiceName(prefix, role), etcd.ClientPort)
}

// isShootNamespace tells a shoot's control-plane namespace from the garden's, as Gardener's
// Service of the API server does (IsShootNamespace in pkg/utils/gardener at Gardener v1.120.0).
func isShootNamespace(namespace string) bool {
	return strings.HasPrefix(namespace, shootNamespacePrefix)
}
