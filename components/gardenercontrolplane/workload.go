package gardenercontrolplane

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// ConfigChecksumAnnotation is the pod template annotation that carries the checksum of the
// component configuration, so that a configuration change rolls the pods.
const ConfigChecksumAnnotation = "checksum/config"

// ConfigKey is the key of the component configuration in its ConfigMap.
const ConfigKey = "config.yaml"

// ConfigDir is where the component configuration is mounted.
const ConfigDir = "/etc/gardener/config"

// ComponentConfig renders a component configuration into a ConfigMap named <component>-config and
// returns it with the checksum for ConfigChecksumAnnotation. config is a JSON-shaped value; its
// YAML has sorted keys, so the checksum is stable.
func (r Resolved) ComponentConfig(config map[string]any) (*corev1.ConfigMap, string, error) {
	data, err := yaml.Marshal(config)
	if err != nil {
		return nil, "", fmt.Errorf("component configuration of %s: %w", r.Component, err)
	}
	sum := sha256.Sum256(data)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: r.Component + "-config", Namespace: r.Namespace, Labels: Labels(Role(r.Component))},
		Data:       map[string]string{ConfigKey: string(data)},
	}, hex.EncodeToString(sum[:]), nil
}

// ConfigVolume and ConfigMount make the ConfigMap of ComponentConfig available at ConfigDir.
func (r Resolved) ConfigVolume() corev1.Volume {
	return corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: r.Component + "-config"},
	}}}
}

// ConfigMount mounts ConfigVolume at ConfigDir.
func ConfigMount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: "config", MountPath: ConfigDir, ReadOnly: true}
}

// Role is the role label of a component: its name without the gardener- prefix.
func Role(component string) string {
	const prefix = "gardener-"
	if len(component) > len(prefix) && component[:len(prefix)] == prefix {
		return component[len(prefix):]
	}
	return component
}

// TopologySpread spreads the pods over nodes and, with high availability, over zones. Both use
// ScheduleAnyway so that a single-node or single-zone runtime cluster still runs every pod.
func (r Resolved) TopologySpread() []corev1.TopologySpreadConstraint {
	selector := &metav1.LabelSelector{MatchLabels: Labels(Role(r.Component))}
	out := []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector,
	}}
	if r.HighAvailability {
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: selector,
		})
	}
	return out
}

// PodDisruptionBudget lets one pod of the component be disrupted at a time; unhealthy pods may
// always be evicted so that a broken rollout never blocks a node drain.
func (r Resolved) PodDisruptionBudget() *policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	always := policyv1.AlwaysAllow
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: r.Component, Namespace: r.Namespace, Labels: Labels(Role(r.Component))},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             &one,
			Selector:                   &metav1.LabelSelector{MatchLabels: Labels(Role(r.Component))},
			UnhealthyPodEvictionPolicy: &always,
		},
	}
}

// Service is the component's ClusterIP Service in the runtime cluster with the given ports.
func (r Resolved) Service(ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: r.Component, Namespace: r.Namespace, Labels: Labels(Role(r.Component))},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: Labels(Role(r.Component)),
			Ports:    ports,
		},
	}
}

// Replicas picks the replica count: one value without and one with high availability.
func (r Resolved) Replicas(normal, ha int32) *int32 {
	if r.HighAvailability {
		return &ha
	}
	return &normal
}
