package vpnseedserver

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The annotations of the server's Services (deployService in
// pkg/component/networking/vpn/seedserver/seedserver.go at Gardener v1.120.0), which
// gardener-resource-manager's NetworkPolicy controller turns into policies (Gardener's "Gardener
// Resource Manager" docs/concepts/resource-manager.md), and Istio's export of the Service to the
// ingress gateways' namespaces.
const (
	annotationNamespaceSelectors      = "networking.resources.gardener.cloud/namespace-selectors"
	annotationNamespaceAlias          = "networking.resources.gardener.cloud/pod-label-selector-namespace-alias"
	annotationScrapeTargetsPorts      = "networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"
	annotationIstioExportTo           = "networking.istio.io/exportTo"
	shootNamespaceAlias               = "all-shoots"
	labelExposureClassHandlerName     = "handler.exposureclass.gardener.cloud/name"
	labelStatefulSetPodName           = "statefulset.kubernetes.io/pod-name"
	istioAPIVersion                   = "networking.istio.io/v1beta1"
	destinationRuleMaxConnections     = 5000
	destinationRuleKeepaliveTime      = "7200s"
	destinationRuleKeepaliveInterval  = "75s"
	destinationRuleFailoverPriorityBy = corev1.LabelTopologyZone
)

// IngressNamespaceSelector selects the namespaces of the seed's Istio ingress gateways, which
// forward vpn-shoot's connections to the server (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md): gardener.cloud/role=istio-ingress, which
// gardenlet's Istio component puts on them (pkg/component/networking/istio/istiod.go at Gardener
// v1.120.0).
var IngressNamespaceSelector = map[string]string{"gardener.cloud/role": "istio-ingress"}

// serviceAnnotations let the ingress gateways' pods (those of the seed's gateways and of the
// ExposureClass handlers' gateways) reach the Service's ports, name the shoot namespaces' alias the
// gateways' egress labels use (to-all-shoots-vpn-seed-server-tcp-1194), allow the seed's
// Prometheus to scrape the metrics port, and export the Service to every namespace for Istio.
func serviceAnnotations() map[string]string {
	selectors, _ := json.Marshal([]metav1.LabelSelector{ // plain values never fail
		{MatchLabels: IngressNamespaceSelector},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: labelExposureClassHandlerName, Operator: metav1.LabelSelectorOpExists}}},
	})
	scrape, _ := json.Marshal([]networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(MetricsPort))}})
	return map[string]string{
		annotationIstioExportTo:      "*",
		annotationNamespaceSelectors: string(selectors),
		annotationNamespaceAlias:     shootNamespaceAlias,
		annotationScrapeTargetsPorts: string(scrape),
	}
}

// service is vpn-seed-server, whose endpoints are the single server's pod, or, with high
// availability, vpn-seed-server-<i>, whose endpoint is the pod of the same name (Gardener's
// docs/development/reversed-vpn-tunnel.md). Every one has the tunnel, the proxy and the metrics
// port, as Gardener's do.
func service(r resolved, name string) *corev1.Service {
	selector := SelectorLabels()
	if r.HighAvailability {
		selector = map[string]string{labelStatefulSetPodName: name}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.Namespace, Annotations: serviceAnnotations()},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports: []corev1.ServicePort{
				{Name: Name, Port: TunnelPort, TargetPort: intstr.FromInt32(TunnelPort)},
				{Name: "http-proxy", Port: ProxyPort, TargetPort: intstr.FromInt32(ProxyPort)},
				{Name: metricsPortName, Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort)},
			},
		},
	}
}

// destinationRule is the Istio DestinationRule of a Service: plain TCP (the tunnel has its own
// TLS), many long-lived connections kept alive, and traffic kept in the gateway's zone while a
// server there is healthy (deployDestinationRule in
// pkg/component/networking/vpn/seedserver/seedserver.go at Gardener v1.120.0). Locality load
// balancing needs outlier detection to be set; its minimum healthy percentage is 0, which Istio's
// JSON leaves out.
func destinationRule(r resolved, name string) render.Object {
	u := kube.Custom(istioAPIVersion, "DestinationRule", r.Namespace, name, nil, map[string]any{"spec": map[string]any{
		"exportTo": []any{"*"},
		"host":     fmt.Sprintf("%s.%s.svc.cluster.local", name, r.Namespace),
		"trafficPolicy": map[string]any{
			"connectionPool": map[string]any{"tcp": map[string]any{
				"maxConnections": int64(destinationRuleMaxConnections),
				"tcpKeepalive":   map[string]any{"interval": destinationRuleKeepaliveInterval, "time": destinationRuleKeepaliveTime},
			}},
			"loadBalancer": map[string]any{"localityLbSetting": map[string]any{
				"enabled": true, "failoverPriority": []any{destinationRuleFailoverPriorityBy},
			}},
			"outlierDetection": map[string]any{},
			"tls":              map[string]any{"mode": "DISABLE"},
		},
	}})
	return kube.On(r.Cluster.Name, "", u)[0]
}
