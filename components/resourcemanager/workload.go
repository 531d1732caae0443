package resourcemanager

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

// Replicas of the Deployment. The GRM serves webhooks, and (webhook) servers run with 2 replicas
// whatever the failure tolerance (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md) and the number of zones (Gardener's "High Availability Of
// Components" docs/development/high-availability-of-components.md), so high_availability changes
// only how the replicas spread.
const Replicas = 2

// Labels that tell Gardener's high-availability-config webhook what the workload is
// (Gardener's docs/development/high-availability-of-components.md: a component that is a controller
// and a webhook server is a server), and that the webhook must leave it alone: the GRM serves that
// webhook itself, so routing its own Deployment through it would block every update of the
// Deployment while no pod runs. The replica count and spread are set here instead.
const (
	labelHAType = "high-availability-config.resources.gardener.cloud/type"
	labelHASkip = "high-availability-config.resources.gardener.cloud/skip"
)

// Pod labels that let the pods through the deny-all policies gardener-operator deploys into the
// garden namespace: to DNS and to the runtime cluster's API server (Gardener's "Network Policies"
// docs/operations/network_policies.md).
var networkLabels = map[string]string{
	"networking.gardener.cloud/to-dns":               "allowed",
	"networking.gardener.cloud/to-runtime-apiserver": "allowed",
}

// deployment is the GRM workload: gardener-garden-system-critical priority (Gardener's "Priority
// Classes" docs/development/priority-classes.md) unless the values say otherwise, the configuration
// and the serving certificate mounted, a config checksum on the template. A shoot's GRM also mounts
// the shoot's kubeconfig. It keeps the serving certificate: the GRM always runs its webhook server,
// and the shoot's kube-apiserver calls its webhooks through the Service (Gardener's "Topology Aware
// Routing" docs/operations/topology_aware_routing.md) once they are registered in the shoot.
func deployment(v Values, image, configSum string) *appsv1.Deployment {
	podLabels := labels()
	for k, val := range networkLabels {
		podLabels[k] = val
	}
	volumes := []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: configMapName},
		}}},
		{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName:  v.ServerTLSSecretName,
			DefaultMode: ptr.To[int32](0o640),
		}}},
	}
	c := container(image)
	if v.Shoot != nil {
		for k, val := range shootPodLabels() {
			podLabels[k] = val
		}
		vol, mount := targetKubeconfig(v.Shoot)
		volumes = append(volumes, vol)
		c.VolumeMounts = append(c.VolumeMounts, mount)
	}
	depLabels := labels()
	depLabels[labelHAType] = "server"
	depLabels[labelHASkip] = "true"
	nonRoot := int64(65532) // the distroless nonroot user Gardener's images run as
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: depLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(int32(Replicas), v.Hibernated)),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      podLabels,
					Annotations: map[string]string{checksumConfig: configSum},
				},
				Spec: corev1.PodSpec{
					PriorityClassName:         v.PriorityClassName,
					ServiceAccountName:        Name,
					TopologySpreadConstraints: spread(v.HighAvailability),
					SecurityContext:           kube.NonRootPodOwningVolumes(nonRoot),
					Containers:                []corev1.Container{c},
					Volumes:                   volumes,
				},
			},
		},
	}
}

// container runs the GRM with its configuration file; the probes are controller-runtime's
// /healthz and /readyz on the health port.
func container(image string) corev1.Container {
	probe := func(path string, initialDelay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: path, Port: intstr.FromInt32(HealthPort), Scheme: corev1.URISchemeHTTP,
			}},
			InitialDelaySeconds: initialDelay,
			PeriodSeconds:       10,
			TimeoutSeconds:      5,
			FailureThreshold:    3,
			SuccessThreshold:    1,
		}
	}
	return corev1.Container{
		Name:            Name,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{"--config=" + configDir + "/" + configKey},
		Ports: []corev1.ContainerPort{
			{Name: "server", ContainerPort: ServerPort, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
			{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe:  probe("/healthz", 15),
		ReadinessProbe: probe("/readyz", 5),
		// Not in Gardener's documentation: modest requests for a handful of garden ManagedResources.
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("50m"),
			corev1.ResourceMemory: resource.MustParse("128Mi"),
		}},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "config", MountPath: configDir, ReadOnly: true},
			{Name: "tls", MountPath: serverCertDir, ReadOnly: true},
		},
	}
}

// spread keeps the replicas on different nodes (Gardener's
// docs/development/high-availability-of-components.md) and, with high availability, in different
// zones (Gardener's docs/development/high-availability-of-components.md). Both constraints only
// prefer (ScheduleAnyway), so that a single-node or single-zone cluster still runs both replicas.
// matchLabelKeys restricts the spread to one ReplicaSet, the imbalance after rollouts that
// Gardener's docs/concepts/resource-manager.md describes.
func spread(highAvailability bool) []corev1.TopologySpreadConstraint {
	keys := []string{corev1.LabelHostname}
	if highAvailability {
		keys = append(keys, corev1.LabelTopologyZone)
	}
	out := make([]corev1.TopologySpreadConstraint, 0, len(keys))
	for _, k := range keys {
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew:           1,
			TopologyKey:       k,
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: labels()},
			MatchLabelKeys:    []string{appsv1.DefaultDeploymentUniqueLabelKey},
		})
	}
	return out
}

// service exposes the webhook server on 443 (Gardener's docs/concepts/resource-manager.md) and the
// metrics port. The annotation lets the garden Prometheus scrape the metrics through the
// NetworkPolicy controller (Gardener's docs/operations/network_policies.md); a shoot's GRM is
// scraped by the shoot's Prometheus instead (Gardener's docs/operations/network_policies.md).
func service(v Values) *corev1.Service {
	scrape := "networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports"
	if v.Shoot != nil {
		scrape = "networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:      Name,
			Namespace: v.Namespace,
			Labels:    labels(),
			Annotations: map[string]string{
				scrape: `[{"port":` + strconv.Itoa(MetricsPort) + `,"protocol":"TCP"}]`,
			},
		},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels(),
			Ports: []corev1.ServicePort{
				{Name: "server", Port: 443, TargetPort: intstr.FromInt32(ServerPort), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort), Protocol: corev1.ProtocolTCP},
			},
		},
	}
}
