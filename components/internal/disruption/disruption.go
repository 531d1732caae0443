// Package disruption builds the PodDisruptionBudget that the catalog's components with more than
// one replica share, so that they all follow the same rule for voluntary disruptions.
package disruption

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Budget is a PodDisruptionBudget for the pods with labels that lets one of them go at a time.
// Unhealthy pods may always be evicted (AlwaysAllow, Gardener's "Shoot Pod Autoscaling Best
// Practices" docs/usage/autoscaling/shoot_pod_autoscaling_best_practices.md, "High Availability Of
// Components" docs/development/high-availability-of-components.md), so that a crash-looping pod or
// a broken rollout never blocks a node drain. The budget carries the labels it selects by.
func Budget(namespace, name string, labels map[string]string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: labels},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}
