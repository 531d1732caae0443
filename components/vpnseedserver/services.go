package vpnseedserver

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// annotationNamespaceSelectors lets pods of other namespaces reach a Service's ports through the
// NetworkPolicies gardener-resource-manager derives from it (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md).
const annotationNamespaceSelectors = "networking.resources.gardener.cloud/namespace-selectors"

// IngressNamespaceSelector selects the namespaces of the seed's Istio ingress gateways, which
// forward vpn-shoot's connections to the server (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md). Gardener's documentation names the
// namespaces (*istio-ingress-*, Gardener's "Network Policies" docs/operations/network_policies.md)
// but not their labels; gardener.cloud/role=istio-ingress is the label an operator finds on them.
var IngressNamespaceSelector = map[string]string{"gardener.cloud/role": "istio-ingress"}

func serviceAnnotations() map[string]string {
	sel, _ := json.Marshal([]any{map[string]any{"matchLabels": IngressNamespaceSelector}}) // plain maps never fail
	return map[string]string{annotationNamespaceSelectors: string(sel)}
}

func tunnelPort() corev1.ServicePort {
	return corev1.ServicePort{Name: "tcp-tunnel", Protocol: corev1.ProtocolTCP, Port: TunnelPort, TargetPort: intstr.FromInt32(TunnelPort)}
}

// service is the single server's Service: the tunnel for vpn-shoot and the proxy for the
// kube-apiserver (Gardener's "Reversed VPN Tunnel" docs/development/reversed-vpn-tunnel.md).
func service(r resolved) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: r.Namespace, Labels: SelectorLabels(), Annotations: serviceAnnotations()},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: SelectorLabels(),
			Ports: []corev1.ServicePort{
				tunnelPort(),
				{Name: "http-proxy", Protocol: corev1.ProtocolTCP, Port: ProxyPort, TargetPort: intstr.FromInt32(ProxyPort)},
			},
		},
	}
}

// podService is the Service vpn-seed-server-<i> with endpoints in the pod of the same name
// (Gardener's docs/development/reversed-vpn-tunnel.md).
func podService(r resolved, name string) *corev1.Service {
	selector := SelectorLabels()
	selector["statefulset.kubernetes.io/pod-name"] = name
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.Namespace, Labels: SelectorLabels(), Annotations: serviceAnnotations()},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{tunnelPort()},
		},
	}
}
