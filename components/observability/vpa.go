package observability

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// containerPolicy is one entry of a VerticalPodAutoscaler's resourcePolicy.containerPolicies, as
// Gardener's observability components spell them.
type containerPolicy struct {
	container string
	// off switches the container's scaling off (mode Off).
	off bool
	// minAllowed and maxAllowed by resource name ("memory": "20Mi").
	minAllowed, maxAllowed map[string]string
	// requestsOnly scales the requests and leaves the limits alone (controlledValues RequestsOnly).
	requestsOnly bool
	// controlledResources lists the resources scaled; empty means all.
	controlledResources []string
}

// verticalPodAutoscaler is a VerticalPodAutoscaler in Auto mode for the target of apiVersion and
// kind: the workloads, and the Prometheus and Alertmanager resources, whose pods
// prometheus-operator creates.
func verticalPodAutoscaler(namespace, name string, labels map[string]string, apiVersion, kind, target string, policies ...containerPolicy) *unstructured.Unstructured {
	list := make([]any, 0, len(policies))
	for _, p := range policies {
		entry := map[string]any{"containerName": p.container}
		if p.off {
			entry["mode"] = "Off"
		}
		if len(p.minAllowed) > 0 {
			entry["minAllowed"] = resourceMap(p.minAllowed)
		}
		if len(p.maxAllowed) > 0 {
			entry["maxAllowed"] = resourceMap(p.maxAllowed)
		}
		if p.requestsOnly {
			entry["controlledValues"] = "RequestsOnly"
		}
		if len(p.controlledResources) > 0 {
			entry["controlledResources"] = kube.AnyList(p.controlledResources)
		}
		list = append(list, entry)
	}
	spec := map[string]any{
		"targetRef":      map[string]any{"apiVersion": apiVersion, "kind": kind, "name": target},
		"updatePolicy":   map[string]any{"updateMode": "Auto"},
		"resourcePolicy": map[string]any{"containerPolicies": list},
	}
	return kube.Custom("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", namespace, name, labels, map[string]any{"spec": spec})
}

// deploymentVPA is verticalPodAutoscaler for a Deployment or StatefulSet.
func workloadVPA(namespace, name string, labels map[string]string, kind, target string, policies ...containerPolicy) *unstructured.Unstructured {
	return verticalPodAutoscaler(namespace, name, labels, "apps/v1", kind, target, policies...)
}

func resourceMap(in map[string]string) map[string]any {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		out[k] = in[k]
	}
	return out
}
