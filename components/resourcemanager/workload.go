package resourcemanager

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// Replicas of the Deployment. The GRM serves webhooks, and (webhook) servers run with 2 replicas
// whatever the failure tolerance (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md) and the number of zones (Gardener's "High Availability Of
// Components" docs/development/high-availability-of-components.md), so high_availability changes
// only how the replicas spread.
const Replicas = 2

// Labels that tell Gardener's high-availability-config webhook what the workload is
// (Gardener's docs/development/high-availability-of-components.md: a component that is a controller
// and a webhook server is a server), and that the webhook must leave it alone. Gardener lets the
// seed's GRM set a shoot GRM's replicas and spread through that webhook; the engine renders both
// itself, so that the webhook's mutation never fights the rendering, and skips the webhook for
// every GRM, as Gardener does for the runtime's.
const (
	labelHAType = "high-availability-config.resources.gardener.cloud/type"
	labelHASkip = "high-availability-config.resources.gardener.cloud/skip"
)

// Pod labels of every GRM: egress to DNS and to the API server of the cluster it runs in
// (getNetworkPolicyLabels in pkg/component/gardener/resourcemanager/resource_manager.go at
// gardener/gardener v1.120.0), and the GRM's own webhooks skipping its pods, which must start
// while nothing serves them.
var podLabels = map[string]string{
	"networking.gardener.cloud/to-dns":                       "allowed",
	"networking.gardener.cloud/to-runtime-apiserver":         "allowed",
	"projected-token-mount.resources.gardener.cloud/skip":    "true",
	"system-components-config.resources.gardener.cloud/skip": "true",
}

// templateLabels are the pods' labels besides the network and skip labels, and the
// PodDisruptionBudget's selector: the app and the role, seed for a runtime GRM, controlplane for a
// shoot's (getDeploymentTemplateLabels in resource_manager.go).
func templateLabels(v Values) map[string]string {
	l := appLabel()
	l["gardener.cloud/role"] = "seed"
	if v.Shoot != nil {
		l["gardener.cloud/role"] = "controlplane"
	}
	return l
}

// The service account token volume the pod mounts in place of an automounted one
// (resource_manager.go): a projected token valid 12 hours, the cluster's root CA and the
// namespace, where client libraries look for them.
const (
	apiAccessVolume = "kube-api-access-gardener"
	apiAccessDir    = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// deployment is the GRM workload (ensureDeployment in resource_manager.go at v1.120.0): the
// configuration, the serving certificate and a ServiceAccount token mounted, and for a shoot's GRM
// the cluster CA and its kubeconfig for the shoot; the Secrets and ConfigMaps it uses are named in
// reference annotations, so that the garbage collector keeps them. It keeps the serving
// certificate in every setting: the GRM always runs its webhook server.
func deployment(v Values, image, configMapName string) *appsv1.Deployment {
	pod := maps.Clone(templateLabels(v))
	maps.Copy(pod, podLabels)
	volumes := []corev1.Volume{
		{Name: apiAccessVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(defaultVolumeMode),
			Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr.To[int64](43200), Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
					Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
				}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
					Path:     "namespace",
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
				}}}},
			},
		}}},
		{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName:  v.ServerTLSSecretName,
			DefaultMode: ptr.To(defaultVolumeMode),
		}}},
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: configMapName},
		}}},
	}
	c := container(image)
	depLabels := labels(v)
	depLabels[labelHASkip] = "true"
	if v.Shoot != nil {
		maps.Copy(pod, shootPodLabels())
		vols, mounts := shootVolumes(v.Shoot)
		volumes = append(volumes, vols...)
		c.VolumeMounts = append(c.VolumeMounts, mounts...)
		depLabels[labelHAType] = "server"
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: depLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(int32(Replicas), v.Hibernated)),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: appLabel()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: pod},
				Spec: corev1.PodSpec{
					PriorityClassName:         v.PriorityClassName,
					ServiceAccountName:        Name,
					TopologySpreadConstraints: spread(v.HighAvailability, templateLabels(v)),
					SecurityContext:           &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers:                []corev1.Container{c},
					Volumes:                   volumes,
				},
			},
		},
	}
	unique.InjectReferences(d)
	return d
}

// container runs the GRM with its configuration file; liveness and readiness are
// controller-runtime's /healthz and /readyz on the health port, with Gardener's timings and
// requests (resource_manager.go).
func container(image string) corev1.Container {
	probe := func(path string) corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(HealthPort), Scheme: corev1.URISchemeHTTP}}
	}
	return corev1.Container{
		Name:            Name,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{fmt.Sprintf("--config=%s/%s", configDir, configKey)},
		Ports: []corev1.ContainerPort{
			{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
			{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
		},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("10m"),
			corev1.ResourceMemory: resource.MustParse("30M"),
		}},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:        probe("/healthz"),
			InitialDelaySeconds: 30, FailureThreshold: 5, PeriodSeconds: 10, SuccessThreshold: 1, TimeoutSeconds: 5,
		},
		ReadinessProbe:  &corev1.Probe{ProbeHandler: probe("/readyz"), InitialDelaySeconds: 10},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
		VolumeMounts: []corev1.VolumeMount{
			{Name: apiAccessVolume, MountPath: apiAccessDir, ReadOnly: true},
			{Name: "tls", MountPath: serverCertDir, ReadOnly: true},
			{Name: "config", MountPath: configDir, ReadOnly: true},
		},
	}
}

// spread keeps the replicas on different nodes (Gardener's
// docs/development/high-availability-of-components.md) and, with high availability, in different
// zones. Both constraints only prefer (ScheduleAnyway), so that a single-node or single-zone
// cluster still runs both replicas. matchLabelKeys restricts the spread to one ReplicaSet, the
// imbalance after rollouts that Gardener's docs/concepts/resource-manager.md describes.
func spread(highAvailability bool, selector map[string]string) []corev1.TopologySpreadConstraint {
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
			LabelSelector:     &metav1.LabelSelector{MatchLabels: selector},
			MatchLabelKeys:    []string{appsv1.DefaultDeploymentUniqueLabelKey},
		})
	}
	return out
}

// service exposes the metrics and health ports and the webhook server on 443 (ensureService in
// resource_manager.go). Its annotations let Prometheus scrape the metrics through the NetworkPolicy
// controller (Gardener's docs/operations/network_policies.md): the seed's scrape targets for a
// runtime GRM, whose webhooks the world may call, the shoot's for a shoot's GRM, whose webhooks the
// shoot's API server calls.
func service(v Values) *corev1.Service {
	ports := func(port int) string { return fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, port) }
	annotations := map[string]string{
		"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": ports(MetricsPort),
		"networking.resources.gardener.cloud/from-world-to-ports":                        ports(ServerPort),
	}
	if v.Shoot != nil {
		annotations = map[string]string{
			"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports":  ports(MetricsPort),
			"networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports": ports(ServerPort),
		}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels(v), Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: appLabel(),
			Ports: []corev1.ServicePort{
				// Gardener leaves these target ports to the API server's default, the port.
				{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort), Protocol: corev1.ProtocolTCP},
				{Name: "health", Port: HealthPort, TargetPort: intstr.FromInt32(HealthPort), Protocol: corev1.ProtocolTCP},
				{Name: "server", Port: 443, TargetPort: intstr.FromInt32(ServerPort), Protocol: corev1.ProtocolTCP},
			},
		},
	}
}

// podDisruptionBudget lets one pod go at a time and unhealthy ones always
// (ensurePodDisruptionBudget in resource_manager.go).
func podDisruptionBudget(v Values) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels(v)},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: templateLabels(v)},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}
