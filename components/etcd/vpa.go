package etcd

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// Eviction requirements of an etcd's VerticalPodAutoscaler: when gardener-resource-manager's
// vpa-eviction-requirements controller lets the VPA evict members to scale them down
// (pkg/apis/core/v1beta1/constants at Gardener v1.120.0).
const (
	// EvictionNever forbids scaling down by eviction: the main etcd of the virtual garden and of
	// production and infrastructure shoots.
	EvictionNever = "never"
	// EvictionInMaintenanceWindowOnly allows it only in the owner's maintenance window.
	EvictionInMaintenanceWindowOnly = "in-maintenance-window-only"
)

// Labels and annotations of the VPA that hand its eviction requirements to
// gardener-resource-manager (pkg/apis/core/v1beta1/constants at Gardener v1.120.0).
const (
	labelEvictionRequirements      = "autoscaling.gardener.cloud/eviction-requirements"
	evictionRequirementsController = "managed-by-controller"
	annotationDownscaleRestriction = "eviction-requirements.autoscaling.gardener.cloud/downscale-restriction"
	annotationMaintenanceWindow    = "shoot.gardener.cloud/maintenance-window"
)

// Container names of the members etcd-druid builds (pkg/component/etcd/etcd/etcd.go at Gardener
// v1.120.0).
const (
	containerEtcd          = "etcd"
	containerBackupRestore = "backup-restore"
)

// evictionRequirement is the VPA's requirement: the composite's, or gardener-operator's for the
// virtual garden's etcds, never for main and in the maintenance window for events
// (pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0).
func evictionRequirement(v Values) string {
	if v.EvictionRequirement != "" {
		return v.EvictionRequirement
	}
	if v.Role == RoleMain {
		return EvictionNever
	}
	return EvictionInMaintenanceWindowOnly
}

// verticalPodAutoscaler scales the etcd container's requests, never below what the etcd's class
// needs, and leaves the backup-restore sidecar's alone (reconcileVerticalPodAutoscaler in
// pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0). An in-window requirement needs the
// window; without one the VPA carries no requirement, as Gardener's does without a requirement.
func verticalPodAutoscaler(v Values, name string) (*unstructured.Unstructured, error) {
	minMemory := "60M"
	if v.Role == RoleMain {
		minMemory = "300M"
	}
	u := kube.Custom("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", v.Namespace, name, map[string]string{
		LabelRole: "etcd-vpa-" + v.Role,
	}, map[string]any{"spec": map[string]any{
		"targetRef":    map[string]any{"apiVersion": "druid.gardener.cloud/v1alpha1", "kind": "Etcd", "name": name},
		"updatePolicy": map[string]any{"updateMode": "Auto"},
		"resourcePolicy": map[string]any{"containerPolicies": []any{
			map[string]any{"containerName": containerEtcd, "minAllowed": map[string]any{"memory": minMemory}, "controlledValues": "RequestsOnly", "mode": "Auto"},
			map[string]any{"containerName": containerBackupRestore, "mode": "Off", "controlledValues": "RequestsOnly"},
		}},
	}})
	requirement := evictionRequirement(v)
	window := v.MaintenanceWindowBegin != "" && v.MaintenanceWindowEnd != ""
	switch {
	case requirement == EvictionNever:
		u.SetAnnotations(map[string]string{annotationDownscaleRestriction: EvictionNever})
	case requirement == EvictionInMaintenanceWindowOnly && window:
		u.SetAnnotations(map[string]string{
			annotationDownscaleRestriction: EvictionInMaintenanceWindowOnly,
			annotationMaintenanceWindow:    v.MaintenanceWindowBegin + "," + v.MaintenanceWindowEnd,
		})
	case requirement == EvictionInMaintenanceWindowOnly:
		return u, nil
	default:
		return nil, fmt.Errorf("eviction requirement %q is not one of %s, %s", requirement, EvictionNever, EvictionInMaintenanceWindowOnly)
	}
	labels := u.GetLabels()
	labels[labelEvictionRequirements] = evictionRequirementsController
	u.SetLabels(labels)
	return u, nil
}
