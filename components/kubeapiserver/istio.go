package kubeapiserver

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

const istioAPIVersion = "networking.istio.io/v1beta1"

// istioObjects expose the API server through the ingress gateway by SNI, as for shoots
// (Gardener's "Gardener Operator" docs/concepts/operator.md): the gateway passes TLS through
// untouched, so clients see the API server's own certificate and client certificates keep working.
func istioObjects(r resolved) []*unstructured.Unstructured {
	name := Name(r.prefix)
	hosts := kube.AnyList(Hosts(r.prefix, r.DNSDomains))
	destination := ServiceName(r.prefix) + "." + r.namespace + ".svc." + r.ClusterDomain
	labels := SelectorLabels()
	selector := map[string]any{}
	for k, v := range r.IngressGatewayLabels {
		selector[k] = v
	}
	gateway := kube.Custom(istioAPIVersion, "Gateway", r.namespace, name, labels, map[string]any{"spec": map[string]any{
		"selector": selector,
		"servers": []any{map[string]any{
			"hosts": hosts,
			"port":  map[string]any{"name": "tls", "number": int64(Port), "protocol": "TLS"},
			"tls":   map[string]any{"mode": "PASSTHROUGH"},
		}},
	}})
	virtualService := kube.Custom(istioAPIVersion, "VirtualService", r.namespace, name, labels, map[string]any{"spec": map[string]any{
		"exportTo": []any{"*"},
		"gateways": []any{name},
		"hosts":    hosts,
		"tls": []any{map[string]any{
			"match": []any{map[string]any{"port": int64(Port), "sniHosts": hosts}},
			"route": []any{map[string]any{"destination": map[string]any{"host": destination, "port": map[string]any{"number": int64(Port)}}}},
		}},
	}})
	// The gateway only forwards bytes (TLS DISABLE towards the pods: they terminate TLS
	// themselves); connection limits and keep-alives protect the API server from connection
	// floods and detect dead peers (values an operator would pick; Gardener's documentation is
	// silent).
	destinationRule := kube.Custom(istioAPIVersion, "DestinationRule", r.namespace, name, labels, map[string]any{"spec": map[string]any{
		"exportTo": []any{"*"},
		"host":     destination,
		"trafficPolicy": map[string]any{
			"connectionPool": map[string]any{"tcp": map[string]any{
				"maxConnections": int64(5000),
				"tcpKeepalive":   map[string]any{"time": "7200s", "interval": "75s"},
			}},
			"tls": map[string]any{"mode": "DISABLE"},
		},
	}})
	return []*unstructured.Unstructured{gateway, virtualService, destinationRule}
}
