package nginxingress

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// istioAPIVersion is the Istio networking API Gardener writes its Istio objects with.
const istioAPIVersion = "networking.istio.io/v1beta1"

// tlsPort is the gateway port the controller is reached on, and the Service port it is passed to.
const tlsPort = 443

// istioObjects put the controller behind the Istio ingress gateway (pkg/utils/istio in
// gardener/gardener v1.120.0): a DestinationRule preferring endpoints in the caller's zone, a
// Gateway passing TLS for the domains through, and one VirtualService per domain routing by SNI to
// the controller's Service. The TLS settings are empty: PASSTHROUGH (server) and DISABLE (client)
// are the modes' zero values, which Gardener's serialisation leaves out.
func istioObjects(v Values) []*unstructured.Unstructured {
	host := ControllerName + "." + v.Namespace + ".svc.cluster.local"
	labels := ControllerLabels()
	domains := make([]any, 0, len(v.Istio.Domains))
	for _, d := range v.Istio.Domains {
		domains = append(domains, d)
	}
	selector := map[string]any{}
	for k, val := range v.Istio.GatewayLabels {
		selector[k] = val
	}
	out := []*unstructured.Unstructured{
		kube.Custom(istioAPIVersion, "DestinationRule", v.Namespace, ControllerName, labels, map[string]any{"spec": map[string]any{
			"exportTo": []any{"*"},
			"host":     host,
			"trafficPolicy": map[string]any{
				"connectionPool": map[string]any{"tcp": map[string]any{
					"maxConnections": int64(5000),
					"tcpKeepalive":   map[string]any{"time": "7200s", "interval": "75s"},
				}},
				"loadBalancer": map[string]any{"localityLbSetting": map[string]any{
					"enabled":          true,
					"failoverPriority": []any{"topology.kubernetes.io/zone"},
				}},
				// Locality load balancing takes effect only with outlier detection.
				"outlierDetection": map[string]any{},
				"tls":              map[string]any{},
			},
		}}),
		kube.Custom(istioAPIVersion, "Gateway", v.Namespace, ControllerName, labels, map[string]any{"spec": map[string]any{
			"selector": selector,
			"servers": []any{map[string]any{
				"hosts": domains,
				"port":  map[string]any{"number": int64(tlsPort), "name": "tls", "protocol": "TLS"},
				"tls":   map[string]any{},
			}},
		}}),
	}
	for i, d := range v.Istio.Domains {
		out = append(out, kube.Custom(istioAPIVersion, "VirtualService", v.Namespace, fmt.Sprintf("%s-%d", ControllerName, i), labels, map[string]any{"spec": map[string]any{
			"exportTo": []any{"*"},
			"hosts":    []any{d},
			"gateways": []any{ControllerName},
			"tls": []any{map[string]any{
				"match": []any{map[string]any{"port": int64(tlsPort), "sniHosts": []any{d}}},
				"route": []any{map[string]any{"destination": map[string]any{"host": host, "port": map[string]any{"number": int64(tlsPort)}}}},
			}},
		}}))
	}
	return out
}
