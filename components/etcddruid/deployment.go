package etcddruid

import (
	"cmp"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// MetricsPort is etcd-druid's metrics port, served by the etcd-druid Service.
const MetricsPort = 8080

// PriorityClass is etcd-druid's class in the garden runtime cluster (Gardener's "Priority Classes"
// docs/development/priority-classes.md).
const PriorityClass = priorityclasses.GardenSystem300

// checksumAnnotation carries the image vector overwrite's checksum on the pod template.
const checksumAnnotation = "checksum/configmap-" + ImageVectorConfigMapName

// args are etcd-druid's flags. Gardener has druid reconcile an Etcd only when its flow sets
// gardener.cloud/operation=reconcile; druid removes that annotation, so an engine applying it
// would see drift on every plan. Here the applied spec is the trigger: druid reconciles every
// spec change on its own (--enable-etcd-spec-auto-reconcile, the successor of
// --ignore-operation-annotation).
func args(v Values) []string {
	out := []string{
		"--enable-leader-election=true",
		"--leader-election-id=" + LeaderElectionID,
		fmt.Sprintf("--metrics-port=%d", MetricsPort),
		fmt.Sprintf("--etcd-workers=%d", v.Workers),
		"--enable-etcd-spec-auto-reconcile=true",
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
	// Gardener's docs/development/high-availability-of-components.md names etcd-druid among the
	// controllers that run twice with high availability.
	n := replicas.HighAvailability(v.HighAvailability)
	pod := corev1.PodSpec{
		ServiceAccountName: Name,
		PriorityClassName:  cmp.Or(v.PriorityClassName, PriorityClass),
		SecurityContext:    kube.NonRootPod(65532),
		Containers: []corev1.Container{{
			Name:            Name,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args:            args(v),
			Env:             []corev1.EnvVar{{Name: imageVectorEnv, Value: imageVectorMountPath + "/" + ImageVectorKey}},
			Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("50m"),
				corev1.ResourceMemory: resource.MustParse("128Mi"),
			}},
			SecurityContext: kube.UnprivilegedReadOnly(),
			VolumeMounts:    []corev1.VolumeMount{{Name: imageVectorVolume, MountPath: imageVectorMountPath, ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{{
			Name: imageVectorVolume,
			VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: ImageVectorConfigMapName},
			}},
		}},
	}
	if n > 1 {
		// Gardener's "High Availability Of Components"
		// docs/development/high-availability-of-components.md asks for the spread; the catalog relaxes
		// the zone constraint to ScheduleAnyway.
		pod.TopologySpreadConstraints = kube.SpreadOverNodesAndZones(labels())
	}
	return &appsv1.Deployment{
		ObjectMeta: meta(Name, v.Namespace),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(n),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: labels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      labels(),
					Annotations: map[string]string{checksumAnnotation: checksum(overwrite)},
				},
				Spec: pod,
			},
		},
	}, nil
}

// service exposes the metrics endpoint for scraping.
func service(namespace string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(Name, namespace),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels(),
			Ports: []corev1.ServicePort{{
				Name:       "metrics",
				Port:       MetricsPort,
				TargetPort: intstr.FromString("metrics"),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}
}

// disruptionBudget keeps one of two replicas running during voluntary disruptions; nil with a
// single replica, whose budget could only block node drains.
func disruptionBudget(v Values) *policyv1.PodDisruptionBudget {
	if replicas.HighAvailability(v.HighAvailability) < 2 {
		return nil
	}
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: meta(Name, v.Namespace),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: labels()},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}
