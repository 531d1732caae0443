package nginxingress

import (
	"github.com/declarative-gardener/gardener/components/internal/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// spread spreads several replicas over nodes and zones (Gardener's
// docs/development/high-availability-of-components.md); ScheduleAnyway keeps them schedulable on a
// single-node cluster.
func spread(n int32, labels map[string]string) []corev1.TopologySpreadConstraint {
	if n < 2 {
		return nil
	}
	return kube.SpreadOverNodesAndZones(labels)
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
