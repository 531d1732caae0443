package vpa

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// Container ports. 10250 is the admission controller's serving port behind the vpa-webhook
// Service; the metrics ports are upstream VPA's defaults.
const (
	WebhookPort                      = 10250
	admissionControllerMetrics       = 8944
	recommenderMetrics               = 8942
	updaterMetrics                   = 8943
	tlsVolume, tlsMountPath          = "tls-certs", "/etc/tls-certs"
	nonRootUser                int64 = 65534
)

// PriorityClass is each component's class in the garden runtime cluster (Gardener's "Priority
// Classes" docs/development/priority-classes.md).
var PriorityClass = map[string]string{
	AdmissionController: priorityclasses.GardenSystem300,
	Recommender:         priorityclasses.GardenSystem200,
	Updater:             priorityclasses.GardenSystem200,
}

// SeedPriorityClass is each component's class in a seed cluster (Gardener's
// docs/development/priority-classes.md).
var SeedPriorityClass = map[string]string{
	AdmissionController: priorityclasses.System800,
	Recommender:         priorityclasses.System700,
	Updater:             priorityclasses.System700,
}

// imageNames maps each component to its image vector entry.
var imageNames = map[string]string{
	AdmissionController: images.VPAAdmissionController,
	Recommender:         images.VPARecommender,
	Updater:             images.VPAUpdater,
}

// args are each component's flags. Where Gardener's documentation is silent the values are what
// Gardener operators are used to from Gardener's own VPA: a one-minute loop, evictions of at most
// half of a workload's replicas at a time, and leader leases kept in the component's namespace.
func args(component string, v Values) []string {
	switch component {
	case AdmissionController:
		return []string{
			fmt.Sprintf("--port=%d", WebhookPort),
			fmt.Sprintf("--address=:%d", admissionControllerMetrics),
			"--client-ca-file=" + tlsMountPath + "/ca.crt",
			"--tls-cert-file=" + tlsMountPath + "/tls.crt",
			"--tls-private-key=" + tlsMountPath + "/tls.key",
			"--register-webhook=false", // the component renders vpa-webhook-config itself
			"--v=2",
		}
	case Recommender:
		return []string{
			fmt.Sprintf("--address=:%d", recommenderMetrics),
			"--recommender-interval=1m",
			"--checkpoints-gc-interval=10m",
			"--memory-saver=true",
			"--leader-elect=true",
			"--leader-elect-resource-name=" + Recommender,
			"--leader-elect-resource-namespace=" + v.Namespace,
			"--v=2",
		}
	default: // Updater
		return []string{
			fmt.Sprintf("--address=:%d", updaterMetrics),
			"--updater-interval=1m",
			"--eviction-tolerance=0.5",
			"--min-replicas=1",
			"--evict-after-oom-threshold=10m",
			"--leader-elect=true",
			"--leader-elect-resource-name=" + Updater,
			"--leader-elect-resource-namespace=" + v.Namespace,
			"--v=2",
		}
	}
}

// metricsPort is the port of a component's metrics and health endpoint.
var metricsPort = map[string]int32{
	AdmissionController: admissionControllerMetrics,
	Recommender:         recommenderMetrics,
	Updater:             updaterMetrics,
}

// requests are modest starting requests; the VPA scales its own pods once it runs.
var requests = map[string]corev1.ResourceList{
	AdmissionController: {corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("30Mi")},
	Recommender:         {corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("60Mi")},
	Updater:             {corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("30Mi")},
}

// selector is the label set a component's pods carry and its Deployment, Service and PDB select.
func selector(component string) map[string]string { return map[string]string{"app": component} }

// deployments renders the three Deployments.
func deployments(v Values, vector images.Vector) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, c := range components {
		image, err := vector.Image(imageNames[c], "")
		if err != nil {
			return nil, err
		}
		out = append(out, deployment(c, image, v))
	}
	return out, nil
}

func deployment(component, image string, v Values) *appsv1.Deployment {
	container := corev1.Container{
		Name:            component,
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            args(component, v),
		Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: metricsPort[component], Protocol: corev1.ProtocolTCP}},
		Resources:       corev1.ResourceRequirements{Requests: requests[component]},
		SecurityContext: kube.UnprivilegedReadOnly(),
	}
	pod := corev1.PodSpec{
		ServiceAccountName: component,
		PriorityClassName:  priorityClass(v, component),
		SecurityContext:    kube.NonRootPod(nonRootUser),
	}
	if component == AdmissionController {
		container.Ports = append(container.Ports, corev1.ContainerPort{Name: "https", ContainerPort: WebhookPort, Protocol: corev1.ProtocolTCP})
		container.VolumeMounts = []corev1.VolumeMount{{Name: tlsVolume, MountPath: tlsMountPath, ReadOnly: true}}
		pod.Volumes = []corev1.Volume{{Name: tlsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: v.TLSSecretName}}}}
	}
	pod.Containers = []corev1.Container{container}
	// Without high availability one admission controller is an accepted risk: the VPA webhook
	// fails open (failurePolicy Ignore).
	n := replicas.HighAvailability(v.HighAvailability)
	if n > 1 {
		pod.TopologySpreadConstraints = kube.SpreadOverNodesAndZones(selector(component))
	}
	return kube.Deployment(meta(component, v.Namespace), selector(component), n, pod)
}

// disruptionBudgets keeps one replica of each component running during voluntary disruptions
// when there are two.
func disruptionBudgets(v Values) []runtime.Object {
	if replicas.HighAvailability(v.HighAvailability) < 2 {
		return nil
	}
	var out []runtime.Object
	for _, c := range components {
		out = append(out, &policyv1.PodDisruptionBudget{
			ObjectMeta: meta(c, v.Namespace),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: selector(c)},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		})
	}
	return out
}

// priorityClass is a component's class: from v.PriorityClasses, else the garden's.
func priorityClass(v Values, component string) string {
	if c, ok := v.PriorityClasses[component]; ok {
		return c
	}
	return PriorityClass[component]
}
