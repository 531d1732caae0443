// Package shootsystem renders the system components Gardener runs inside every shoot cluster,
// mostly in kube-system (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go): CoreDNS, kube-proxy, the reversed VPN client vpn-shoot,
// metrics-server and the optional node-local DNS cache. The objects are not applied by the engine
// directly: the shoot's own gardener-resource-manager in the seed applies them into the shoot, so
// ManagedResources packs every component into a ManagedResource (class unset, Gardener's
// "Conventions" docs/extensions/conventions.md) in the shoot's namespace of the seed. The shoot
// composite calls ManagedResources with Values it builds from the Shoot's spec; there is no
// component type of its own.
package shootsystem

import (
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Namespace is where the shoot system components live (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go).
const Namespace = "kube-system"

// The shoot's built-in priority classes (Gardener's "Priority Classes"
// docs/development/priority-classes.md), created by Kubernetes itself.
const (
	SystemNodeCritical    = "system-node-critical"
	SystemClusterCritical = "system-cluster-critical"
)

// Kube-proxy modes (.spec.kubernetes.kubeProxy.mode, Gardener's KubeProxyConfig in
// docs/api-reference/core.md).
const (
	ModeIPTables = "IPTables"
	ModeIPVS     = "IPVS"
)

// Labels Gardener's node and network machinery select system component pods by.
const (
	// criticalComponentLabel marks node-critical DaemonSets and their pods (Gardener's "Readiness of
	// Shoot Worker Nodes" docs/usage/advanced/node-readiness.md).
	criticalComponentLabel = "node.gardener.cloud/critical-component"
	// criticalComponentsTaint is on new nodes until node-critical pods are ready (Gardener's
	// docs/usage/advanced/node-readiness.md).
	criticalComponentsTaint = "node.gardener.cloud/critical-components-not-ready"
	// poolLabel is the worker pool label Gardener puts on nodes (Gardener's "ContainerRuntime"
	// docs/extensions/resources/containerruntime.md).
	poolLabel = "worker.gardener.cloud/pool"
	// The shoot's kube-system NetworkPolicies select pods by these labels (Gardener's "Network
	// Policies" docs/operations/network_policies.md).
	toAPIServer      = "networking.gardener.cloud/to-apiserver"
	toDNS            = "networking.gardener.cloud/to-dns"
	toPublicNetworks = "networking.gardener.cloud/to-public-networks"
	fromSeed         = "networking.gardener.cloud/from-seed"
	allowed          = "allowed"
)

// Values describe a shoot as far as its system components need it. The zero value of every
// optional field is Gardener's default.
type Values struct {
	// KubernetesVersion is the shoot's Kubernetes version (required); it tags kube-proxy's image
	// for worker pools without a version of their own.
	KubernetesVersion string
	// ServiceCIDR is the shoot's service network (required); CoreDNS's Service gets its 10th
	// address, the cluster DNS IP kubelets hand to pods.
	ServiceCIDR string
	// PodCIDR is the shoot's pod network (required with kube-proxy: its cluster CIDR).
	PodCIDR string
	// NodeCIDR is the shoot's node network; vpn-shoot routes it (optional).
	NodeCIDR string
	// WorkerPools are the shoot's worker pools; kube-proxy runs one DaemonSet per pool.
	WorkerPools []WorkerPool
	// KubeProxy configures kube-proxy (.spec.kubernetes.kubeProxy, Gardener's KubeProxyConfig in
	// docs/api-reference/core.md).
	KubeProxy KubeProxyConfig
	// NodeLocalDNS configures the node-local DNS cache (.spec.systemComponents.nodeLocalDNS,
	// Gardener's NodeLocalDNS in docs/api-reference/core.md).
	NodeLocalDNS NodeLocalDNSConfig
	// VPN configures vpn-shoot, the reversed VPN client.
	VPN VPNConfig
	// MetricsServer configures metrics-server.
	MetricsServer MetricsServerConfig
	// APIServerProxy configures the apiserver-proxy, which APIServerProxyManagedResource packs
	// into a ManagedResource of its own: its address is known only once the API server's Service
	// exists.
	APIServerProxy APIServerProxyConfig
	// APIServerHost is the shoot API server's internal domain name (api.<shoot>.<project>.<internal
	// domain>, Gardener's "Control Plane Endpoints And Ports"
	// docs/usage/advanced/control-plane-endpoints-and-ports.md), required with kube-proxy: its
	// kubeconfig names it, so that kube-proxy reaches the API server directly instead of through
	// the kubernetes Service whose routing it programs itself, and CoreDNS gets it as
	// KUBERNETES_SERVICE_HOST.
	APIServerHost string
	// ClusterCA is the shoot's cluster CA (ca.crt) that kube-proxy's kubeconfig trusts.
	ClusterCA Generated
	// VPAEnabled says that the shoot runs a vertical pod autoscaler
	// (.spec.kubernetes.verticalPodAutoscaler.enabled): kube-proxy's containers get memory limits
	// then.
	VPAEnabled bool
	// Images overrides image vector entries by name.
	Images map[string]string
}

// WorkerPool is one of the shoot's worker pools.
type WorkerPool struct {
	// Name is the pool's name, as in .spec.provider.workers[].name.
	Name string
	// KubernetesVersion is the pool's own version (.spec.provider.workers[].kubernetes.version);
	// empty for the shoot's.
	KubernetesVersion string
	// Zones are the pool's zones.
	Zones []string
	// NoSystemComponents is set for a pool that does not allow system components
	// (.spec.provider.workers[].systemComponents.allow=false).
	NoSystemComponents bool
}

// KubeProxyConfig configures kube-proxy.
type KubeProxyConfig struct {
	// Disabled leaves kube-proxy out, for networking extensions that route Services themselves
	// (.spec.kubernetes.kubeProxy.enabled=false, Gardener's KubeProxyConfig in
	// docs/api-reference/core.md, "Network" docs/extensions/resources/network.md). Gardener's default
	// is enabled, hence the negation.
	Disabled bool
	// Mode is IPTables (default, Gardener's KubeProxyConfig in docs/api-reference/core.md) or IPVS.
	Mode string
	// FeatureGates are kube-proxy's feature gates (.spec.kubernetes.kubeProxy.featureGates).
	FeatureGates map[string]bool
}

// NodeLocalDNSConfig configures the node-local DNS cache.
type NodeLocalDNSConfig struct {
	// Enabled deploys it (default off; enabling rolls all nodes, Gardener's "NodeLocalDNS
	// Configuration" docs/usage/networking/node-local-dns.md).
	Enabled bool
	// UDPToClusterDNS and UDPToUpstreamDNS turn off the default TCP forwarding to CoreDNS and to
	// the upstream DNS servers (forceTCPTo*DNS default true, Gardener's NodeLocalDNS in
	// docs/api-reference/core.md).
	UDPToClusterDNS  bool
	UDPToUpstreamDNS bool
	// DisableForwardToUpstreamDNS sends every query to CoreDNS (Gardener's NodeLocalDNS in
	// docs/api-reference/core.md, "Custom DNS Configuration"
	// docs/usage/networking/custom-dns-config.md).
	DisableForwardToUpstreamDNS bool
}

// VPNConfig configures vpn-shoot.
type VPNConfig struct {
	// Endpoint is the host the client connects to: the shoot API server's domain, served by the
	// seed's istio ingress gateway on port 8132 (Gardener's
	// docs/usage/advanced/control-plane-endpoints-and-ports.md).
	Endpoint string
	// ControlPlaneNamespace is the shoot's namespace in the seed, where vpn-seed-server runs; the
	// ingress gateway routes the tunnel by it. ManagedResources fills it in when empty.
	ControlPlaneNamespace string
	// HighAvailability runs two clients, each connected to both VPN servers (Gardener's "Reversed VPN
	// Tunnel" docs/development/reversed-vpn-tunnel.md).
	HighAvailability bool
	// SecretName names the Secret in kube-system with the client certificate (tls.crt,
	// tls.key) and the VPN CA (ca.crt); "vpn-shoot-client" when empty.
	SecretName string
	// TLSAuthSecretName names the Secret in kube-system with OpenVPN's tls-auth key (key
	// vpn.tlsauth); "vpn-seed-server-tlsauth" when empty.
	TLSAuthSecretName string
	// Client, CA and TLSAuth are the generated Secrets in the control-plane namespace that
	// SecretName (tls.crt and tls.key of Client, ca.crt of CA) and TLSAuthSecretName
	// (vpn.tlsauth) are filled from. Without Client, or without TLSAuth, that Secret is not
	// rendered and must exist in the shoot some other way.
	Client, CA, TLSAuth Generated
}

// Generated names a Secret the engine generates in the shoot's control-plane namespace in the
// seed. A system component's Secret inside the shoot carries its keys as render.GeneratedRef
// markers, which the engine replaces when it packs the component's ManagedResource: the
// shoot's resource manager then creates the Secret in the shoot.
type Generated struct {
	Namespace, Name string
}

// ref is the marker of key of the generated Secret, base64-encoded as Secret data wants it.
func (g Generated) ref(key string) string { return render.GeneratedRef(g.Namespace, g.Name, key, true) }

// MetricsServerConfig configures metrics-server.
type MetricsServerConfig struct {
	// TLSSecretName names the Secret in kube-system with the serving certificate (tls.crt,
	// tls.key); "metrics-server" when empty.
	TLSSecretName string
	// CABundle is the base64-encoded CA of the serving certificate (or a generated-secret marker
	// with base64 set) for the APIService. Empty skips TLS verification, as upstream's manifests do.
	CABundle string
	// TLS is the generated serving certificate TLSSecretName is filled from; without it that
	// Secret is not rendered.
	TLS Generated
}

// prepared are the values with defaults applied and derived facts computed once.
type prepared struct {
	Values
	images       images.Vector
	clusterDNSIP string
}

// renderPrepared renders one component of the shoot system from the values, checked and defaulted
// by prepare as Parts does.
func renderPrepared(v Values, component func(*prepared) ([]*unstructured.Unstructured, error)) ([]*unstructured.Unstructured, error) {
	p, err := prepare(v)
	if err != nil {
		return nil, err
	}
	return component(p)
}

// prepare checks the values and applies the defaults.
func prepare(v Values) (*prepared, error) {
	if v.KubernetesVersion == "" {
		return nil, fmt.Errorf("shoot system components: kubernetes version is required")
	}
	dns, err := ClusterDNSIP(v.ServiceCIDR)
	if err != nil {
		return nil, fmt.Errorf("shoot system components: %w", err)
	}
	for _, c := range []struct{ name, cidr string }{{"pod", v.PodCIDR}, {"node", v.NodeCIDR}} {
		if c.cidr == "" {
			continue
		}
		if _, err := netip.ParsePrefix(c.cidr); err != nil {
			return nil, fmt.Errorf("shoot system components: %s network %q: %w", c.name, c.cidr, err)
		}
	}
	if v.KubeProxy.Mode != ModeIPTables && v.KubeProxy.Mode != ModeIPVS {
		return nil, fmt.Errorf("shoot system components: kube-proxy mode %q is not one of %s, %s", v.KubeProxy.Mode, ModeIPTables, ModeIPVS)
	}
	seen := map[string]bool{}
	for _, p := range v.WorkerPools {
		if errs := validation.IsDNS1123Label(p.Name); len(errs) > 0 {
			return nil, fmt.Errorf("shoot system components: worker pool name %q is invalid: %s", p.Name, strings.Join(errs, "; "))
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("shoot system components: worker pool %q is listed twice", p.Name)
		}
		seen[p.Name] = true
	}
	if v.VPN.SecretName == "" {
		v.VPN.SecretName = "vpn-shoot-client"
	}
	if v.VPN.TLSAuthSecretName == "" {
		v.VPN.TLSAuthSecretName = "vpn-seed-server-tlsauth"
	}
	if v.MetricsServer.TLSSecretName == "" {
		v.MetricsServer.TLSSecretName = "metrics-server"
	}
	vec, err := images.Default().Override(v.Images)
	if err != nil {
		return nil, fmt.Errorf("shoot system components: %w", err)
	}
	return &prepared{Values: v, images: vec, clusterDNSIP: dns}, nil
}

// ClusterDNSIP is the address of the kube-dns Service: the 10th address of the service network,
// the address Gardener configures kubelets with. Gardener's documentation does not state the rule;
// it is Gardener's and upstream's long-standing convention (10.96.0.10 in kubeadm clusters).
func ClusterDNSIP(serviceCIDR string) (string, error) {
	if serviceCIDR == "" {
		return "", fmt.Errorf("service network is required")
	}
	p, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return "", fmt.Errorf("service network %q: %w", serviceCIDR, err)
	}
	p = p.Masked()
	a := p.Addr()
	for range 10 {
		a = a.Next()
	}
	if !a.IsValid() || !p.Contains(a) {
		return "", fmt.Errorf("service network %q is too small for the cluster DNS address", serviceCIDR)
	}
	return a.String(), nil
}

// image returns the reference of an image of the vector, version for kube-proxy.
func (p *prepared) image(name, version string) (string, error) {
	ref, err := p.images.Image(name, version)
	if err != nil {
		return "", fmt.Errorf("shoot system components: %w", err)
	}
	return ref, nil
}

// poolVersion is a worker pool's Kubernetes version without a leading v.
func (p *prepared) poolVersion(pool WorkerPool) string { return poolVersion(p.Values, pool) }

// poolVersion is the Kubernetes version of a worker pool: its own, or else the shoot's.
func poolVersion(v Values, pool WorkerPool) string {
	version := pool.KubernetesVersion
	if version == "" {
		version = v.KubernetesVersion
	}
	return strings.TrimPrefix(version, "v")
}
