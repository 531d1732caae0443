package kube

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Deployment is a Deployment of replicas pods with the labels it selects them by, keeping two
// old ReplicaSets to roll back to.
func Deployment(meta metav1.ObjectMeta, labels map[string]string, replicas int32, pod corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       pod,
			},
		},
	}
}

// SurgeFirst is the rollout of a control-plane component that must not lose its only instance:
// the new pod starts before the old one stops (leader election keeps a single one active).
func SurgeFirst() appsv1.DeploymentStrategy {
	return appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge:       ptr.To(intstr.FromInt32(1)),
			MaxUnavailable: ptr.To(intstr.FromInt32(0)),
		},
	}
}

// SpreadOverNodesAndZones places replicas on different nodes and zones where possible (Gardener's
// "High Availability Of Components" docs/development/high-availability-of-components.md asks for
// the spread); ScheduleAnyway relaxes it, so that a single-node or single-zone cluster still runs
// every replica.
func SpreadOverNodesAndZones(selector map[string]string) []corev1.TopologySpreadConstraint {
	var out []corev1.TopologySpreadConstraint
	for _, key := range []string{corev1.LabelHostname, corev1.LabelTopologyZone} {
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchLabels: selector},
		})
	}
	return out
}
