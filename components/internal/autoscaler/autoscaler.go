// Package autoscaler renders the VerticalPodAutoscalers Gardener's components deploy for their
// workloads (autoscaling.k8s.io/v1, updateMode Auto): the CRD comes from the VPA component, so the
// objects are built unstructured.
package autoscaler

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// AllContainers is the container name of a policy that applies to every container.
const AllContainers = "*"

// RequestsOnly is the controlledValues of a policy that scales requests and leaves limits alone.
const RequestsOnly = "RequestsOnly"

// ContainerPolicy is one entry of .spec.resourcePolicy.containerPolicies.
type ContainerPolicy struct {
	// Container is the container's name, or AllContainers.
	Container string
	// MinAllowed are the smallest requests the VPA recommends, by resource name ("memory": "25Mi").
	MinAllowed map[string]string
	// ControlledValues is RequestsOnly, or empty for the VPA's default (requests and limits).
	ControlledValues string
	// Mode is ModeOff for a container the VPA leaves alone, or empty for the VPA's default (Auto).
	Mode string
}

// ModeOff is the mode of a policy whose container the VPA does not scale.
const ModeOff = "Off"

// Vertical is a VerticalPodAutoscaler in Auto mode for the Deployment target.
func Vertical(namespace, name string, labels map[string]string, target string, policies ...ContainerPolicy) *unstructured.Unstructured {
	spec := map[string]any{
		"targetRef":    map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
		"updatePolicy": map[string]any{"updateMode": "Auto"},
	}
	if len(policies) > 0 {
		var list []any
		for _, p := range policies {
			entry := map[string]any{"containerName": p.Container}
			if len(p.MinAllowed) > 0 {
				min := map[string]any{}
				for _, k := range slices.Sorted(maps.Keys(p.MinAllowed)) {
					min[k] = p.MinAllowed[k]
				}
				entry["minAllowed"] = min
			}
			if p.ControlledValues != "" {
				entry["controlledValues"] = p.ControlledValues
			}
			if p.Mode != "" {
				entry["mode"] = p.Mode
			}
			list = append(list, entry)
		}
		spec["resourcePolicy"] = map[string]any{"containerPolicies": list}
	}
	return kube.Custom("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", namespace, name, labels, map[string]any{"spec": spec})
}
