package kubescheduler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
)

// SelectorLabels select the scheduler's pods: app kubernetes like the shoot's kube-apiserver
// (kubeapiserver.AppLabel), role scheduler.
func SelectorLabels() map[string]string {
	return map[string]string{"app": kubeapiserver.AppLabel(""), "role": "scheduler"}
}

// command is the kube-scheduler command line with the provider-independent flags of
// Gardener's "ControlPlane Webhooks" docs/extensions/controlplane-webhooks.md: --config, the
// delegated authentication and authorization kubeconfigs, secure serving and ports, and
// --feature-gates.
func command(v Values) []string {
	kubeconfig := accessDir + "/kubeconfig"
	c := []string{
		"/usr/local/bin/kube-scheduler",
		"--config=" + configDir + "/" + configKey,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--profiling=false",
		fmt.Sprintf("--secure-port=%d", Port),
	}
	if v.ServerTLSSecretName != "" {
		c = append(c, "--tls-cert-file="+tlsDir+"/tls.crt", "--tls-private-key-file="+tlsDir+"/tls.key")
	}
	if len(v.FeatureGates) > 0 {
		c = append(c, "--feature-gates="+kubeapiserver.FeatureGatesFlag(v.FeatureGates))
	}
	return append(c, "--v=2")
}

func deployment(v Values, config string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.KubeScheduler, v.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kube-scheduler images: %w", err)
	}
	selector := SelectorLabels()
	labels := map[string]string{
		// The weeder restarts control-plane pods once kube-apiserver is back (Gardener's "Seed
		// Bootstrapping" docs/operations/seed_bootstrapping.md).
		"gardener.cloud/role":              "controlplane",
		"networking.gardener.cloud/to-dns": "allowed",
		// Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md: egress to the API
		// server's Service in the same namespace.
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	}
	maps.Copy(labels, selector)
	sum := sha256.Sum256([]byte(config))
	volumes := []corev1.Volume{
		{Name: "access", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: v.AccessSecretName, DefaultMode: ptr.To(int32(0o640))}}},
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName}}}},
	}
	mounts := []corev1.VolumeMount{
		{Name: "access", MountPath: accessDir, ReadOnly: true},
		{Name: "config", MountPath: configDir, ReadOnly: true},
	}
	if v.ServerTLSSecretName != "" {
		volumes = append(volumes, corev1.Volume{Name: "server", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: v.ServerTLSSecretName, DefaultMode: ptr.To(int32(0o640))}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "server", MountPath: tlsDir, ReadOnly: true})
	}
	var spread []corev1.TopologySpreadConstraint
	if v.HighAvailability {
		spread = kube.SpreadOverNodesAndZones(selector)
	}
	return kubeapiserver.ControlPlaneDeployment(metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: selector},
		ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(v.HighAvailability), v.Hibernated)),
		metav1.ObjectMeta{
			Labels:      labels,
			Annotations: map[string]string{"checksum/configmap-" + ConfigMapName: hex.EncodeToString(sum[:])},
		},
		corev1.PodSpec{
			// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-system-300
			// unless the values say otherwise (validate).
			PriorityClassName:         v.PriorityClassName,
			TopologySpreadConstraints: spread,
			SecurityContext:           kube.NonRootPodOwningVolumes(65532),
			Containers: []corev1.Container{{
				Name:          Name,
				Image:         image,
				Command:       command(v),
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
				LivenessProbe: kubeapiserver.SecureProbe("/healthz", Port, 2),
				// Initial requests for a scheduler; Gardener's documentation gives none.
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("10m"),
					corev1.ResourceMemory: resource.MustParse("64Mi"),
				}},
				SecurityContext: kube.Unprivileged(),
				VolumeMounts:    mounts,
			}},
			Volumes: volumes,
		}), nil
}

// service exposes the metrics port to the shoot's Prometheus (Gardener's "Network Policies"
// docs/operations/network_policies.md).
func service(v Values) *corev1.Service {
	return kubeapiserver.MetricsService(Name, v.Namespace, SelectorLabels(), "all-scrape-targets", Port)
}
