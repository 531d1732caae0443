package nginxingress

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// replicas is 2 under high availability, else 1 (S4:24611-24614: servers run with 2 replicas).
func replicas(ha bool) int32 {
	if ha {
		return 2
	}
	return 1
}

// podDisruptionBudget lets one pod go at a time; unhealthy pods may always be evicted, so that
// a crash-looping pod never blocks a node drain (S4:11470).
func podDisruptionBudget(namespace, name string, labels map[string]string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: labels},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// spread spreads several replicas over nodes and zones (S4:24620-24650); ScheduleAnyway keeps
// them schedulable on a single-node cluster.
func spread(n int32, labels map[string]string) []corev1.TopologySpreadConstraint {
	if n < 2 {
		return nil
	}
	var out []corev1.TopologySpreadConstraint
	for _, key := range []string{corev1.LabelHostname, corev1.LabelTopologyZone} {
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew:           1,
			TopologyKey:       key,
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: labels},
		})
	}
	return out
}

// healthz probes /healthz on a port.
func healthz(port, period int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(port)}},
		PeriodSeconds:    period,
		TimeoutSeconds:   1,
		FailureThreshold: 3,
	}
}

// fieldEnv is an environment variable from the pod's own fields.
func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
}
