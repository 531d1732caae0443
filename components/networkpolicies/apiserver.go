package networkpolicies

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// APIServer is where the pods of a cluster reach its own API server: the addresses and ports of
// the endpoints of the `kubernetes` Service in `default`, which the API servers maintain
// themselves. An empty APIServer gives allow-to-runtime-apiserver no egress rule.
type APIServer struct {
	// Addresses are the IP addresses of the ready API server endpoints, without repeats.
	Addresses []string
	// Ports are the ports they serve on.
	Ports []Port
}

// Port is one port of the API server's endpoints.
type Port struct {
	Port     int32
	Protocol string
}

// The `kubernetes` Service's EndpointSlice, which the API server writes beside the Endpoints of
// the same name with the same addresses and ports (Kubernetes' "EndpointSlices" concept page).
const (
	apiServerNamespace = "default"
	apiServerSlice     = "kubernetes"
	serviceNameLabel   = "kubernetes.io/service-name"
)

// ReadAPIServer reads the endpoints of cluster's API server from its `kubernetes`
// EndpointSlice. gardenlet reads the Endpoints of the same name
// (pkg/controller/networkpolicy/reconciler.go in gardener/gardener v1.120.0); the engine reads
// the EndpointSlice, because reading Endpoints, deprecated since Kubernetes 1.33, makes every API
// server answer with a deprecation warning, which would be printed on every plan. It lists the
// slice rather than getting it, so that the daemon watches it and renders again when the API
// server's endpoints change, as gardenlet's controller does when the Endpoints change.
//
// A cluster whose API server keeps no endpoints (the local control plane, whose API servers run
// on loopback with the endpoint reconciler off), and a run without clusters to read, give an
// empty APIServer.
func ReadAPIServer(in render.Input, cluster string) (APIServer, error) {
	items, err := in.Listed(render.ListRef{
		Cluster: cluster, Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices",
		Namespace: apiServerNamespace, LabelSelector: serviceNameLabel + "=" + apiServerSlice,
	})
	if err != nil {
		return APIServer{}, fmt.Errorf("read the endpoints of the API server of cluster %s: %w", cluster, err)
	}
	for i := range items {
		if items[i].GetName() == apiServerSlice {
			return apiServerOf(&items[i])
		}
	}
	return APIServer{}, nil
}

// apiServerOf reads the ready addresses and the ports of an EndpointSlice. An endpoint without a
// ready condition counts as ready, as EndpointSlice consumers read it.
func apiServerOf(slice *unstructured.Unstructured) (APIServer, error) {
	var out APIServer
	endpoints, _, err := unstructured.NestedSlice(slice.Object, "endpoints")
	if err != nil {
		return out, fmt.Errorf("EndpointSlice %s/%s: %w", slice.GetNamespace(), slice.GetName(), err)
	}
	for _, e := range endpoints {
		ep, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if ready, found, _ := unstructured.NestedBool(ep, "conditions", "ready"); found && !ready {
			continue
		}
		addresses, _, _ := unstructured.NestedStringSlice(ep, "addresses")
		for _, a := range addresses {
			if !slices.Contains(out.Addresses, a) {
				out.Addresses = append(out.Addresses, a)
			}
		}
	}
	ports, _, err := unstructured.NestedSlice(slice.Object, "ports")
	if err != nil {
		return out, fmt.Errorf("EndpointSlice %s/%s: %w", slice.GetNamespace(), slice.GetName(), err)
	}
	for _, p := range ports {
		port, ok := p.(map[string]any)
		if !ok {
			continue
		}
		number, found, _ := unstructured.NestedInt64(port, "port")
		if !found {
			continue // "all ports", which the API server's own slice never says
		}
		protocol, _, _ := unstructured.NestedString(port, "protocol")
		if protocol == "" {
			protocol = "TCP"
		}
		out.Ports = append(out.Ports, Port{Port: int32(number), Protocol: protocol})
	}
	return out, nil
}
