package dependencywatchdog

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

const (
	configDir = "/etc/dependency-watchdog/config"
	// healthPort serves the controller runtime's /healthz and /readyz; an operator's choice.
	healthPort = 9643
)

// selectorLabels select an instance's pods.
func selectorLabels(r Role) map[string]string {
	return map[string]string{"app": Name(r), "role": "dependency-watchdog"}
}

// podLabels allow the pods' traffic under the seed's NetworkPolicies: both instances talk to the
// seed's API server (Gardener's "Network Policies" docs/operations/network_policies.md) and resolve
// names (Gardener's docs/operations/network_policies.md); the prober also probes every shoot's
// kube-apiserver in-cluster (Gardener's docs/operations/network_policies.md) and through its load
// balancer, a public or private address (Gardener's docs/operations/network_policies.md, "Seed
// Bootstrapping" docs/operations/seed_bootstrapping.md).
func podLabels(r Role) map[string]string {
	labels := map[string]string{
		"networking.gardener.cloud/to-dns":               "allowed",
		"networking.gardener.cloud/to-runtime-apiserver": "allowed",
	}
	if r == Prober {
		labels["networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443"] = "allowed"
		labels["networking.gardener.cloud/to-public-networks"] = "allowed"
		labels["networking.gardener.cloud/to-private-networks"] = "allowed"
	}
	maps.Copy(labels, selectorLabels(r))
	return labels
}

func configMap(r Role, ns, config string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName(r), Namespace: ns, Labels: selectorLabels(r)},
		Data:       map[string]string{ConfigKey: config},
	}
}

func deployment(r Role, ns, image string, ha bool, config string) *appsv1.Deployment {
	sum := sha256.Sum256([]byte(config))
	selector := selectorLabels(r)
	var spread []corev1.TopologySpreadConstraint
	if ha {
		spread = kube.SpreadOverNodesAndZones(selector)
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name(r), Namespace: ns, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.HighAvailability(ha)),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels: podLabels(r),
					// Roll the pods when the configuration changes.
					Annotations: map[string]string{"checksum/configmap-" + ConfigMapName(r): hex.EncodeToString(sum[:])},
				},
				Spec: corev1.PodSpec{
					ServiceAccountName: Name(r),
					// Both instances are gardener-system-800 (Gardener's "Priority Classes"
					// docs/development/priority-classes.md).
					PriorityClassName:         priorityclasses.System800,
					TopologySpreadConstraints: spread,
					SecurityContext:           kube.NonRootPod(65532),
					Containers: []corev1.Container{{
						Name:    "dependency-watchdog",
						Image:   image,
						Command: []string{"/usr/local/bin/dependency-watchdog"},
						Args: []string{
							string(r),
							"--config-file=" + configDir + "/" + ConfigKey,
							"--enable-leader-election=true",
							"--leader-election-namespace=" + ns,
						},
						Ports: []corev1.ContainerPort{{Name: "health", ContainerPort: healthPort, Protocol: corev1.ProtocolTCP}},
						LivenessProbe: &corev1.Probe{
							ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(healthPort)}},
							InitialDelaySeconds: 15, PeriodSeconds: 10,
						},
						// Initial requests; Gardener's documentation gives none.
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("20m"),
							corev1.ResourceMemory: resource.MustParse("64Mi"),
						}},
						SecurityContext: kube.Unprivileged(),
						VolumeMounts:    []corev1.VolumeMount{{Name: "config", MountPath: configDir, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(r)}},
					}}},
				},
			},
		},
	}
}
