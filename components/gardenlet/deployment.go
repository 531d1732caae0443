package gardenlet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

const configDir = "/etc/gardenlet/config"

// SelectorLabels select gardenlet's pods (the chart's app gardener, role gardenlet).
func SelectorLabels() map[string]string {
	return map[string]string{"app": "gardener", "role": "gardenlet"}
}

// podLabels allow gardenlet's traffic under the seed's NetworkPolicies: the seed's API server
// (Gardener's "Network Policies" docs/operations/network_policies.md), DNS (Gardener's
// docs/operations/network_policies.md), the garden API, which may be public or private (Gardener's
// docs/operations/network_policies.md), and every shoot's kube-apiserver (Gardener's
// docs/operations/network_policies.md).
func podLabels() map[string]string {
	labels := map[string]string{
		"networking.gardener.cloud/to-dns":                                         "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                           "allowed",
		"networking.gardener.cloud/to-public-networks":                             "allowed",
		"networking.gardener.cloud/to-private-networks":                            "allowed",
		"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443": "allowed",
	}
	maps.Copy(labels, SelectorLabels())
	return labels
}

func deployment(v Values, config string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.Gardenlet, "")
	if err != nil {
		return nil, fmt.Errorf("gardenlet images: %w", err)
	}
	sum := sha256.Sum256([]byte(config))
	selector := SelectorLabels()
	var spread []corev1.TopologySpreadConstraint
	if v.HighAvailability {
		spread = kube.SpreadOverNodesAndZones(selector)
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(HealthPort)}},
			InitialDelaySeconds: 15, PeriodSeconds: 15, TimeoutSeconds: 5,
		}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas.HighAvailability(v.HighAvailability)),
			// Gardener's "Deploy Gardenlet Manually" docs/deployment/deploy_gardenlet_manually.md:
			// revisionHistoryLimit 2.
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels: podLabels(),
					// Roll the pods when the configuration changes.
					Annotations: map[string]string{"checksum/configmap-gardenlet-config": hex.EncodeToString(sum[:])},
				},
				Spec: corev1.PodSpec{
					ServiceAccountName: Name,
					// Gardener's "Priority Classes" docs/development/priority-classes.md:
					// gardener-system-critical.
					PriorityClassName:         priorityclasses.SystemCritical,
					TopologySpreadConstraints: spread,
					SecurityContext:           kube.NonRootPod(65532),
					Containers: []corev1.Container{{
						Name:  Name,
						Image: image,
						Args:  []string{"--config=" + configDir + "/" + ConfigKey},
						Ports: []corev1.ContainerPort{
							{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
						},
						// Gardener's "gardenlet" docs/concepts/gardenlet.md: /healthz is the liveness probe; it fails
						// when the Lease in the garden cannot be renewed.
						LivenessProbe:  probe("/healthz"),
						ReadinessProbe: probe("/readyz"),
						// Initial requests; Gardener's documentation gives none.
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("256Mi"),
						}},
						SecurityContext: kube.Unprivileged(),
						VolumeMounts:    []corev1.VolumeMount{{Name: "config", MountPath: configDir, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName}},
					}}},
				},
			},
		},
	}, nil
}

// service exposes the metrics port to the seed's Prometheus (Gardener's
// docs/operations/network_policies.md).
func service(ns string) *corev1.Service {
	return kubeapiserver.MetricsService(Name, ns, SelectorLabels(), "all-seed-scrape-targets", MetricsPort)
}
