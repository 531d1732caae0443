// Package istio renders the istio component: istiod and one or more istio-ingressgateways in
// the garden runtime cluster (Gardener's "Gardener Operator" docs/concepts/operator.md, "Istio"
// among the garden system components) or, later, a seed. The virtual-garden-kube-apiserver is
// exposed through a dedicated gateway in namespace virtual-garden-istio-ingress whose Service is of
// type LoadBalancer (Gardener's docs/concepts/operator.md); seeds add zonal and exposure-class
// gateways (Gardener's "Istio" docs/operations/istio.md), so gateways are a list.
//
// Gardener's Istio differs from Istio's default profile (Gardener's docs/operations/istio.md):
// istiod and ingress gateways only, each gateway in its own namespace, no telemetry, no egress
// gateway, no sidecar injector, Services and VirtualServices not exported by default, mTLS on. The
// Gateway, VirtualService and DestinationRule objects that route traffic through a gateway belong
// to the component being exposed (kube_apiserver); it references the constants and helpers below.
package istio

import (
	"fmt"
	"maps"
	"regexp"

	"github.com/zclconf/go-cty/cty"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names and ports other components need to route traffic through a gateway.
const (
	// DefaultNamespace is istiod's namespace (Gardener's docs/concepts/operator.md names istio-system
	// among the namespaces the garden's health checks read).
	DefaultNamespace = "istio-system"
	// VirtualGardenIngressNamespace holds the gateway that exposes virtual-garden-kube-apiserver
	// (Gardener's docs/concepts/operator.md).
	VirtualGardenIngressNamespace = "virtual-garden-istio-ingress"
	// DefaultIngressGatewayName names a gateway's Deployment, Service and ServiceAccount; the
	// documents query the Service by this name (Gardener's docs/concepts/operator.md, "Getting Started
	// Locally" docs/deployment/getting_started_locally.md).
	DefaultIngressGatewayName = "istio-ingressgateway"
	// DefaultTrustDomain is the SPIFFE trust domain of the mesh.
	DefaultTrustDomain = "cluster.local"
	// IstiodName names istiod's Deployment, Service and ServiceAccount, as upstream does.
	IstiodName = "istiod"

	// TLSPassthroughPort is the gateway Service port for kube-apiserver traffic dispatched by TLS
	// SNI without termination (Gardener's "Control Plane Endpoints And Ports"
	// docs/usage/advanced/control-plane-endpoints-and-ports.md). An Istio Gateway server names this
	// Service port (servers[].port.number: 443, protocol TLS, tls.mode PASSTHROUGH); Istio then
	// listens on the matching target port.
	TLSPassthroughPort int32 = 443
	// TLSPassthroughTargetPort is the port Envoy listens on for TLSPassthroughPort: the proxy runs
	// as a non-root user, which cannot bind ports below 1024. Gardener's documentation is silent on
	// it; 9443 is the port Gardener's gateways are commonly seen with.
	TLSPassthroughTargetPort int32 = 9443
	// TLSPassthroughPortName names the port in the Service (Gardener's seeds and garden name it
	// tcp, pkg/gardenlet/controller/seed/seed/components.go at Gardener v1.120.0).
	TLSPassthroughPortName = "tcp"
	// StatusPort serves the gateway's readiness (/healthz/ready). Gardener's gateway Services do
	// not expose it (the chart's service.yaml at Gardener v1.120.0).
	StatusPort int32 = 15021
	// istiodXDSPort is where proxies fetch configuration and certificates over TLS.
	istiodXDSPort int32 = 15012
	// envoyMetricsPort is the proxy's Prometheus endpoint.
	envoyMetricsPort int32 = 15090
	// clusterDomain is the runtime cluster's DNS domain; Gardener clusters use the default.
	clusterDomain = "cluster.local"
)

// DefaultGatewayLabels are the pod and Service selector labels of a gateway that names none;
// Istio Gateway objects select the gateway pods by them (spec.selector, Gardener's
// docs/deployment/getting_started_locally.md).
func DefaultGatewayLabels() map[string]string {
	return map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}
}

// DefaultGatewayPorts are a gateway's Service ports when it names none: TLS passthrough to
// kube-apiservers (Gardener's docs/usage/advanced/control-plane-endpoints-and-ports.md). Seeds add
// 8443 (apiserver-proxy) and 8132 (reversed VPN) themselves (Gardener's
// docs/usage/advanced/control-plane-endpoints-and-ports.md).
func DefaultGatewayPorts() []Port {
	return []Port{{Name: TLSPassthroughPortName, Port: TLSPassthroughPort, TargetPort: TLSPassthroughTargetPort}}
}

// VirtualGardenGateway is the gateway that exposes virtual-garden-kube-apiserver (Gardener's
// docs/concepts/operator.md): the garden composite adds it with the runtime cluster's load balancer
// annotations (.spec.runtimeCluster.settings.loadBalancerServices.annotations, Gardener's
// docs/concepts/operator.md).
func VirtualGardenGateway(loadBalancerAnnotations map[string]string) Gateway {
	gw := GatewayDefaults()
	gw.Namespace, gw.Labels, gw.Ports = VirtualGardenIngressNamespace, DefaultGatewayLabels(), DefaultGatewayPorts()
	gw.LoadBalancerAnnotations = maps.Clone(loadBalancerAnnotations)
	// Its pods reach virtual-garden-kube-apiserver in the garden namespace
	// (pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0).
	gw.NetworkPolicyLabels = map[string]string{"networking.resources.gardener.cloud/to-garden-virtual-garden-kube-apiserver-tcp-443": "allowed"}
	return gw
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster (or seed) Istio runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is istiod's namespace.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (istio-istiod, istio-proxy).
	Images map[string]string `json:"images"`
	// HighAvailability runs istiod with 2 replicas instead of 1, as the HA conventions run servers
	// (Gardener's "High Availability Of Components"
	// docs/development/high-availability-of-components.md). The gateways always start with 2 and
	// autoscale (the chart's autoscale.yaml at Gardener v1.120.0).
	HighAvailability bool `json:"high_availability"`
	// TrustDomain is the mesh's trust domain.
	TrustDomain string `json:"trust_domain"`
	// PriorityClassName is the class of istiod and the gateways (Gardener's "Priority Classes"
	// docs/development/priority-classes.md). Seeds use gardener-system-critical (Gardener's
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// Zones are the cluster's availability zones: the gateways that no zone pins are spread over
	// them and, on more than one, scale from 2 to 6 replicas per zone
	// (pkg/component/shared/istio.go at Gardener v1.120.0).
	Zones []string `json:"zones"`
	// IngressGateways are the gateways, each in its own namespace (Gardener's
	// docs/operations/istio.md). None renders istiod alone.
	IngressGateways []Gateway `json:"ingress_gateway"`
	// GatewaysOnly renders only the ingress gateways, for a cluster where istiod and the CRDs
	// already run (a seed in the garden runtime cluster, Gardener's docs/concepts/operator.md).
	GatewaysOnly bool `json:"-"`
}

// Gateway is one istio-ingressgateway: a Deployment of Envoy proxies behind a Service.
type Gateway struct {
	// Namespace is the gateway's own namespace, e.g. virtual-garden-istio-ingress; required,
	// and different from istiod's and every other gateway's.
	Namespace string `json:"namespace"`
	// Name names the Deployment, Service, ServiceAccount and PodDisruptionBudget.
	Name string `json:"name"`
	// Labels are the pod and Service selector labels Istio Gateway objects select by; empty
	// means DefaultGatewayLabels. A zonal gateway's carry its zone (istio=ingressgateway--zone--<zone>,
	// or an ExposureClass handler's role with the same suffix), which its namespace repeats. Two gateways must not share them, since a Gateway's selector
	// matches pods in every namespace.
	Labels map[string]string `json:"labels"`
	// ServiceType is the Service's type (Gardener's docs/concepts/operator.md).
	ServiceType corev1.ServiceType `json:"service_type"`
	// LoadBalancerAnnotations are added to the Service (Gardener's docs/concepts/operator.md,
	// "ExposureClasses" docs/usage/networking/exposureclasses.md).
	LoadBalancerAnnotations map[string]string `json:"load_balancer_annotations"`
	// Ports are the Service ports besides the status port; empty means DefaultGatewayPorts.
	Ports []Port `json:"port"`
	// Zone pins the gateway's pods to one availability zone (Gardener's docs/operations/istio.md); ""
	// spreads them over all zones.
	Zone string `json:"zone"`
	// VPN makes the gateway carry the shoots' reversed VPN on VPNPort: its Gateway, its
	// EnvoyFilters and the pods' egress to the VPN servers (a seed's gateways, Gardener's "Reversed
	// VPN Tunnel" docs/development/reversed-vpn-tunnel.md).
	VPN bool `json:"vpn"`
	// NetworkPolicyLabels are further egress labels of the gateway's pods: the API servers it
	// forwards to (a seed's shoots', or the virtual garden's).
	NetworkPolicyLabels map[string]string `json:"network_policy_labels"`
	// PreviousNamespace is the namespace an earlier rendering gave this gateway, when its name
	// changed (a zonal gateway's <namespace>--zone--<zone> before the engine named it as Gardener
	// does): the new namespace supersedes it, so that plans delete the old one with everything the
	// component applied in it, with the reason superseded.
	PreviousNamespace string `json:"-"`
}

// Port is one Service port of a gateway and the proxy port it forwards to.
type Port struct {
	// Name is the Service and container port name (an IANA service name, at most 15 characters).
	Name string `json:"name"`
	// Port is the Service (load balancer) port; Istio Gateway servers name this number.
	Port int32 `json:"port"`
	// TargetPort is the port Envoy listens on; 0 means Port.
	TargetPort int32 `json:"target_port"`
}

// Type is the istio component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// GatewayDefaults are the defaults of an ingress_gateway block, for composites that add gateways.
var GatewayDefaults = component.BlockDefaults[Gateway](typeSchema, "ingress_gateway")

// renderValues renders one istio instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{
		"ingress_gateway_namespaces": namespacesValue(v.IngressGateways),
	}}, nil
}

// namespacesValue lists the gateways' namespaces in configuration order, for the
// ingress_gateway_namespaces output.
func namespacesValue(gws []Gateway) cty.Value {
	if len(gws) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	out := make([]cty.Value, len(gws))
	for i, gw := range gws {
		out[i] = cty.StringVal(gw.Namespace)
	}
	return cty.ListVal(out)
}

// Objects renders the Istio CRDs, istiod and the ingress gateways.
func Objects(v Values) ([]render.Object, error) {
	v, err := withDefaults(v)
	if err != nil {
		return nil, err
	}
	imgs, err := images.Resolve(v.Images, images.Istiod, images.IstioProxy)
	if err != nil {
		return nil, fmt.Errorf("istio: %w", err)
	}
	istiodImage, proxyImage := imgs[images.Istiod], imgs[images.IstioProxy]

	var typed []runtime.Object
	if !v.GatewaysOnly {
		for _, name := range CRDNames() {
			crd, err := crds.Object(name)
			if err != nil {
				return nil, fmt.Errorf("istio: %w", err)
			}
			typed = append(typed, crd)
		}
		typed = append(typed, istiodObjects(v, istiodImage)...)
	}
	for _, gw := range v.IngressGateways {
		typed = append(typed, gatewayObjects(v, gw, proxyImage)...)
	}
	out, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	supersedeRenamedNamespaces(out, v.IngressGateways)
	for _, gw := range v.IngressGateways {
		for _, o := range envoyFilterObjects(gw) {
			out = append(out, kube.On(v.Cluster.Name, "", &unstructured.Unstructured{Object: o})...)
		}
	}
	return out, nil
}

// CRDNames are the Istio CRDs the component installs: the networking kinds that expose
// kube-apiservers (Gardener's docs/deployment/getting_started_locally.md,
// docs/operations/istio.md) and the EnvoyFilters of the gateways (gateway.go).
func CRDNames() []string {
	return []string{
		"gateways.networking.istio.io",
		"virtualservices.networking.istio.io",
		"destinationrules.networking.istio.io",
		"envoyfilters.networking.istio.io",
	}
}

// withDefaults fills in the defaults that depend on other values (a gateway's labels and ports)
// and rejects values no cluster would accept.
func withDefaults(v Values) (Values, error) {
	if err := checkName("namespace", v.Namespace); err != nil {
		return v, err
	}
	gws := make([]Gateway, len(v.IngressGateways))
	namespaces := map[string]bool{v.Namespace: true}
	selectors := map[string]string{}
	for i, gw := range v.IngressGateways {
		gw, err := gatewayWithDefaults(gw)
		if err != nil {
			return v, err
		}
		if namespaces[gw.Namespace] {
			return v, fmt.Errorf("istio: ingress gateway namespace %q is used twice or is istiod's; every gateway needs its own namespace", gw.Namespace)
		}
		namespaces[gw.Namespace] = true
		key := fmt.Sprint(sortedPairs(gw.Labels))
		if other, ok := selectors[key]; ok {
			return v, fmt.Errorf("istio: ingress gateways in %q and %q have the same labels %v; Gateway selectors match pods in every namespace, so each gateway needs its own labels", other, gw.Namespace, sortedPairs(gw.Labels))
		}
		selectors[key] = gw.Namespace
		gws[i] = gw
	}
	v.IngressGateways = gws
	return v, nil
}

// supersedeRenamedNamespaces marks the namespace of every gateway that had another name before as
// the successor of the old one, and every gateway's ServiceAccount as the successor of the one
// earlier versions named like the gateway (render.Object.Supersedes).
func supersedeRenamedNamespaces(objs []render.Object, gws []Gateway) {
	previous, gateways := map[string]string{}, map[string]string{}
	for _, gw := range gws {
		if gw.PreviousNamespace != "" && gw.PreviousNamespace != gw.Namespace {
			previous[gw.Namespace] = gw.PreviousNamespace
		}
		gateways[gw.Namespace] = gw.Name
	}
	exactly := func(name string) *regexp.Regexp { return regexp.MustCompile("^" + regexp.QuoteMeta(name) + "$") }
	for i, o := range objs {
		u := o.Object
		switch {
		case u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1" && previous[u.GetName()] != "":
			objs[i].Supersedes = exactly(previous[u.GetName()])
		case u.GetKind() == "ServiceAccount" && u.GetAPIVersion() == "v1" && gateways[u.GetNamespace()] != "" && u.GetName() == gateways[u.GetNamespace()]+serviceAccountSuffix:
			objs[i].Supersedes = exactly(gateways[u.GetNamespace()])
		}
	}
}
