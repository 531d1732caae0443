package etcddruid

import (
	"cmp"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// MetricsPort is etcd-druid's metrics port, served by the etcd-druid Service.
const MetricsPort = 8080

// PriorityClass is etcd-druid's class in the garden runtime cluster (Gardener's "Priority Classes"
// docs/development/priority-classes.md).
const PriorityClass = priorityclasses.GardenSystem300

// The backup compaction settings gardenlet and gardener-operator configure by default
// (SetDefaults_BackupCompactionController in pkg/gardenlet/apis/config/v1alpha1/defaults.go).
const (
	backupCompaction          = false
	compactionWorkers         = 3
	eventsThreshold           = 1000000
	metricsScrapeWaitDuration = "1m0s"
)

// haTypeLabel tells gardener-resource-manager's high-availability-config webhook that druid is a
// controller.
const haTypeLabel = "high-availability-config.resources.gardener.cloud/type"

// args are etcd-druid's flags in gardenlet's order (getDruidDeployArgs in
// pkg/component/etcd/etcd/bootstrap.go), with one exception: gardenlet has druid reconcile an Etcd
// only when its flow sets gardener.cloud/operation=reconcile, which druid removes again, so an
// engine applying the annotation would see drift on every plan. Here the applied spec is the
// trigger: druid reconciles every spec change on its own (--enable-etcd-spec-auto-reconcile=true).
func args(v Values) []string {
	out := []string{
		"--enable-leader-election=true",
		"--disable-etcd-serviceaccount-automount=true",
		fmt.Sprintf("--etcd-workers=%d", v.Workers),
		"--enable-etcd-spec-auto-reconcile=true",
		fmt.Sprintf("--webhook-server-port=%d", webhookPort),
		"--webhook-server-tls-server-cert-dir=" + webhookTLSDir,
		"--enable-etcd-components-webhook=true",
		"--etcd-components-webhook-exempt-service-accounts=system:serviceaccount:kube-system:generic-garbage-collector",
		"--enable-backup-compaction=" + strconv.FormatBool(backupCompaction),
		fmt.Sprintf("--compaction-workers=%d", compactionWorkers),
		fmt.Sprintf("--etcd-events-threshold=%d", eventsThreshold),
		"--metrics-scrape-wait-duration=" + metricsScrapeWaitDuration,
	}
	if len(v.FeatureGates) > 0 {
		out = append(out, "--feature-gates="+kube.FeatureGatesFlag(v.FeatureGates))
	}
	return out
}

func deployment(v Values, vector images.Vector, overwrite *corev1.ConfigMap) (*appsv1.Deployment, error) {
	image, err := vector.Image(images.EtcdDruid, "")
	if err != nil {
		return nil, err
	}
	container := corev1.Container{
		Name:            Name,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            args(v),
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("50m"),
			corev1.ResourceMemory: resource.MustParse("128Mi"),
		}},
		Ports:           []corev1.ContainerPort{{ContainerPort: MetricsPort}},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
		VolumeMounts:    []corev1.VolumeMount{{Name: webhookTLSVolume, MountPath: webhookTLSDir, ReadOnly: true}},
	}
	pod := corev1.PodSpec{
		PriorityClassName:  cmp.Or(v.PriorityClassName, PriorityClass),
		ServiceAccountName: Name,
		Volumes: []corev1.Volume{{Name: webhookTLSVolume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: v.WebhookTLSSecretName, DefaultMode: ptr.To[int32](0o644)},
		}}},
	}
	if overwrite != nil {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: imageVectorVolume, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: overwrite.Name}},
		}})
		container.VolumeMounts = append(container.VolumeMounts, corev1.VolumeMount{Name: imageVectorVolume, MountPath: imageVectorMountPath, ReadOnly: true})
		container.Env = []corev1.EnvVar{{Name: imageVectorEnv, Value: imageVectorMountPath + "/" + ImageVectorKey}}
	}
	pod.Containers = []corev1.Container{container}
	n := replicas.HighAvailability(v.HighAvailability)
	if n > 1 {
		pod.TopologySpreadConstraints = kube.SpreadOverNodesAndZones(labels())
	}
	podLabels := labels()
	podLabels["networking.gardener.cloud/to-dns"] = "allowed"
	podLabels["networking.gardener.cloud/to-runtime-apiserver"] = "allowed"
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: withHAType(labels())},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(n),
			RevisionHistoryLimit: ptr.To[int32](1),
			Selector:             &metav1.LabelSelector{MatchLabels: labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       pod,
			},
		},
	}
	unique.InjectReferences(d)
	return d, nil
}

// withHAType adds the high-availability-config type label: druid is a controller.
func withHAType(l map[string]string) map[string]string {
	out := maps.Clone(l)
	out[haTypeLabel] = "controller"
	return out
}

// service exposes the metrics endpoint and the webhook server. Its annotations let
// gardener-resource-manager's NetworkPolicy controller admit the seed's Prometheus to the metrics
// port and the API server (world) to the webhook port.
func service(namespace string) *corev1.Service {
	m := metav1.ObjectMeta{Name: Name, Namespace: namespace, Labels: withHAType(labels()), Annotations: map[string]string{
		"networking.resources.gardener.cloud/from-world-to-ports":                        fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, webhookPort),
		"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": fmt.Sprintf(`[{"protocol":"TCP","port":%d}]`, MetricsPort),
	}}
	return &corev1.Service{
		ObjectMeta: m,
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels(),
			Ports: []corev1.ServicePort{
				{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort)},
				{Name: "webhooks", Protocol: corev1.ProtocolTCP, Port: webhookServicePort, TargetPort: intstr.FromInt32(webhookPort)},
			},
		},
	}
}

// disruptionBudget lets one pod go at a time, unhealthy ones always.
func disruptionBudget(namespace string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: meta(Name, namespace),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: labels()},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// verticalAutoscaler scales druid's requests (not its limits), never below 100M of memory.
func verticalAutoscaler(namespace string) *unstructured.Unstructured {
	return autoscaler.Vertical(namespace, Name+"-vpa", labels(), Name, autoscaler.ContainerPolicy{
		Container: Name, MinAllowed: map[string]string{"memory": "100M"}, ControlledValues: autoscaler.RequestsOnly,
	})
}
