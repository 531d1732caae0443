// Package vpnseedserver renders the vpn_seed_server component: the server end of a shoot's
// reversed VPN tunnel in the shoot's control-plane namespace of the seed (Gardener's "Reversed VPN
// Tunnel" docs/development/reversed-vpn-tunnel.md). The vpn-shoot client in the shoot dials out
// through the seed's Istio ingress gateway (port 8132, Gardener's "Control Plane Endpoints And
// Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md) to this server, and the shoot's
// kube-apiserver reaches nodes, Services and Pods of the shoot through the tunnel. Without high
// availability a single server runs with an HTTP CONNECT proxy beside it that the kube-apiserver
// uses (Gardener's docs/development/reversed-vpn-tunnel.md); with high availability two servers run
// as pods vpn-seed-server-0 and -1, each behind a Service of the same name, and the
// kube-apiserver's own VPN sidecars connect to both (Gardener's
// docs/development/reversed-vpn-tunnel.md).
package vpnseedserver

import (
	"fmt"
	"net"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the workload, of the Service without high availability and the prefix of
// the per-pod Services with it (Gardener's docs/development/reversed-vpn-tunnel.md).
const Name = "vpn-seed-server"

// Ports of the server's containers (pkg/component/networking/vpn/seedserver/seedserver.go at
// Gardener v1.120.0).
const (
	// TunnelPort is where OpenVPN accepts the vpn-shoot clients (and, with high availability,
	// the kube-apiserver's VPN sidecars): OpenVPN's registered port.
	TunnelPort = 1194
	// ProxyPort is where the HTTP CONNECT proxy beside a single server listens for the
	// kube-apiserver (Gardener's docs/development/reversed-vpn-tunnel.md).
	ProxyPort = 9443
	// MetricsPort serves the proxy's metrics (single server) or the OpenVPN exporter's (two
	// servers).
	MetricsPort = 15000
)

// Networks are the shoot's networks the tunnel routes to. Each is one CIDR, or several
// comma-separated for a dual-stack shoot (first the primary family's).
type Networks struct {
	// Pods is the shoot's pod network (.spec.networking.pods).
	Pods string `json:"pods"`
	// Services is the shoot's service network (.spec.networking.services).
	Services string `json:"services"`
	// Nodes is the shoot's node network (.spec.networking.nodes, or what the Infrastructure
	// reported as status.nodesCIDR, Gardener's "Infrastructure"
	// docs/extensions/resources/infrastructure.md); "" for a shoot without one yet.
	Nodes string `json:"nodes"`
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the seed.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the shoot's control-plane namespace shoot--<project>--<shoot>; required.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (vpn-server, envoy-proxy).
	Images map[string]string `json:"images"`
	// HighAvailability runs two servers instead of one: true for shoots with a failure
	// tolerance (node or zone) of their control plane (Gardener's
	// docs/development/reversed-vpn-tunnel.md).
	HighAvailability bool `json:"high_availability"`
	// ShootNetworks are the networks routed through the tunnel.
	ShootNetworks Networks `json:"shoot_networks"`
	// IPFamilies are the shoot's IP families (.spec.networking.ipFamilies); nil means IPv4.
	IPFamilies []string `json:"ip_families"`
	// SeedPodNetwork is the seed's pod network, which the server keeps out of the routes into
	// the tunnel.
	SeedPodNetwork string `json:"seed_pod_network"`
	// VPNNetwork, when set, overrides the server's built-in transfer network; Gardener v1.120.0
	// sets none.
	VPNNetwork string `json:"vpn_network"`
	// ServerSecretName holds the server's certificate (tls.crt, tls.key), signed by the VPN CA.
	ServerSecretName string `json:"server_secret_name"`
	// CASecretName holds the VPN CA (ca.crt) that vpn-shoot's and the kube-apiserver's client
	// certificates are checked against (Gardener's "Shoot Credentials Rotation"
	// docs/usage/shoot-operations/shoot_credentials_rotation.md).
	CASecretName string `json:"ca_secret_name"`
	// TLSAuthSecretName holds the OpenVPN TLS auth key (key vpn.tlsauth, Gardener's
	// docs/usage/shoot-operations/shoot_credentials_rotation.md, "Secrets Management"
	// docs/development/secrets_management.md).
	TLSAuthSecretName string `json:"tls_auth_secret_name"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). The workload keeps its kind (StatefulSet or
	// Deployment), so waking up only scales it again.
	Hibernated bool `json:"-"`
}

// WorkloadKind is the kind of the server's workload: a StatefulSet with high availability, so
// that its pods carry the stable names vpn-seed-server-0 and -1 the per-pod Services select
// (Gardener's docs/development/reversed-vpn-tunnel.md), and a Deployment otherwise.
func WorkloadKind(highAvailability bool) string {
	if highAvailability {
		return "StatefulSet"
	}
	return "Deployment"
}

// ServiceNames are the Services the clients dial: vpn-seed-server, or vpn-seed-server-0 and -1
// with high availability (Gardener's docs/development/reversed-vpn-tunnel.md).
func ServiceNames(highAvailability bool) []string {
	if !highAvailability {
		return []string{Name}
	}
	out := make([]string, replicas.HighAvailability(true))
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", Name, i)
	}
	return out
}

// SelectorLabels select the server's pods.
func SelectorLabels() map[string]string {
	return map[string]string{"app": Name}
}

// Type is the vpn_seed_server component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// resolved are the values once checked.
type resolved struct {
	Values
	pods, services, nodes []string
}

func resolve(v Values) (resolved, error) {
	if v.Namespace == "" {
		return resolved{}, fmt.Errorf("namespace is required: the shoot's control-plane namespace")
	}
	if v.ShootNetworks.Pods == "" || v.ShootNetworks.Services == "" {
		return resolved{}, fmt.Errorf("shoot networks: pods and services are required")
	}
	r := resolved{Values: v}
	for _, n := range []struct {
		name string
		list string
		into *[]string
	}{
		{"pods", v.ShootNetworks.Pods, &r.pods}, {"services", v.ShootNetworks.Services, &r.services},
		{"nodes", v.ShootNetworks.Nodes, &r.nodes}, {"seed pod", v.SeedPodNetwork, nil}, {"vpn", v.VPNNetwork, nil},
	} {
		if n.list == "" {
			continue
		}
		for _, cidr := range strings.Split(n.list, ",") {
			cidr = strings.TrimSpace(cidr)
			if _, _, err := net.ParseCIDR(cidr); err != nil {
				return resolved{}, fmt.Errorf("%s network %q: %w", n.name, cidr, err)
			}
			if n.into != nil {
				*n.into = append(*n.into, cidr)
			}
		}
	}
	if len(r.IPFamilies) == 0 {
		r.IPFamilies = []string{"IPv4"}
	}
	return r, nil
}

// Objects renders the workload, its Services with their Istio DestinationRules, the proxy's
// configuration (single server) or a PodDisruptionBudget (two servers), as Gardener's vpn-seed-server
// component does (pkg/component/networking/vpn/seedserver/seedserver.go at Gardener v1.120.0).
func Objects(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	var typed []runtime.Object
	if r.HighAvailability {
		sts, err := statefulSet(r)
		if err != nil {
			return nil, err
		}
		typed = append(typed, sts, disruption.Budget(r.Namespace, Name, SelectorLabels()))
	} else {
		cm := envoyConfigMap(r)
		d, err := deployment(r, cm)
		if err != nil {
			return nil, err
		}
		typed = append(typed, cm, d)
	}
	for _, name := range ServiceNames(r.HighAvailability) {
		typed = append(typed, service(r, name))
	}
	objs, err := kube.Typed(r.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	for _, name := range ServiceNames(r.HighAvailability) {
		objs = append(objs, destinationRule(r, name))
	}
	return objs, nil
}
