package vpa

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// Ports: the admission controller's webhook server behind the vpa-webhook Service's 443, and each
// component's metrics (and health) port; recommender and updater also declare a server port.
const (
	WebhookPort                = 10250
	admissionControllerMetrics = 8944
	recommenderMetrics         = 8942
	updaterMetrics             = 8943
	serverPort                 = 8080
	tlsVolume, tlsMountPath    = "vpa-tls-certs", "/etc/tls-certs"
)

// PriorityClass is each component's class in the garden runtime cluster (Gardener's "Priority
// Classes" docs/development/priority-classes.md).
var PriorityClass = map[string]string{
	AdmissionController: priorityclasses.GardenSystem300,
	Recommender:         priorityclasses.GardenSystem200,
	Updater:             priorityclasses.GardenSystem200,
}

// SeedPriorityClass is each component's class in a seed cluster (newVerticalPodAutoscaler in
// pkg/gardenlet/controller/seed/seed/components.go).
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

// containerNames are the containers' names, the component's name without the vpa- prefix.
var containerNames = map[string]string{
	AdmissionController: "admission-controller",
	Recommender:         "recommender",
	Updater:             "updater",
}

// The tuning gardenlet and gardener-operator give their VPA (NewVerticalPodAutoscaler in
// pkg/component/shared/vpa.go): a 5% recommendation margin, eviction of all replicas allowed,
// OOM-evictions for 48h; the rest are the Shoot API's VPA defaults (pkg/apis/core/v1beta1/types_shoot.go).
const (
	recommendationMarginFraction = 0.05
	evictionTolerance            = 1.0
	evictAfterOOMThreshold       = "48h0m0s"
)

// args are each component's flags, flag for flag in Gardener's order.
func args(component string, v Values) []string {
	switch component {
	case AdmissionController:
		return []string{
			"--v=2",
			"--stderrthreshold=info",
			"--kube-api-qps=200",
			"--kube-api-burst=250",
			"--client-ca-file=" + tlsMountPath + "/bundle.crt",
			"--tls-cert-file=" + tlsMountPath + "/tls.crt",
			"--tls-private-key=" + tlsMountPath + "/tls.key",
			fmt.Sprintf("--address=:%d", admissionControllerMetrics),
			fmt.Sprintf("--port=%d", WebhookPort),
			"--register-webhook=false", // the component renders the webhook configuration itself
		}
	case Recommender:
		return []string{
			"--v=3",
			"--stderrthreshold=info",
			"--pod-recommendation-min-cpu-millicores=10",
			"--pod-recommendation-min-memory-mb=10",
			fmt.Sprintf("--recommendation-margin-fraction=%f", recommendationMarginFraction),
			"--recommender-interval=1m0s",
			"--kube-api-qps=200",
			"--kube-api-burst=250",
			"--memory-saver=true",
			fmt.Sprintf("--target-cpu-percentile=%f", 0.9),
			fmt.Sprintf("--recommendation-lower-bound-cpu-percentile=%f", 0.5),
			fmt.Sprintf("--recommendation-upper-bound-cpu-percentile=%f", 0.95),
			"--cpu-histogram-decay-half-life=24h0m0s",
			fmt.Sprintf("--target-memory-percentile=%f", 0.9),
			fmt.Sprintf("--recommendation-lower-bound-memory-percentile=%f", 0.5),
			fmt.Sprintf("--recommendation-upper-bound-memory-percentile=%f", 0.95),
			"--memory-histogram-decay-half-life=24h0m0s",
			"--memory-aggregation-interval=24h0m0s",
			"--memory-aggregation-interval-count=8",
			"--leader-elect=true",
			"--leader-elect-resource-name=" + Recommender,
			"--leader-elect-resource-namespace=" + v.Namespace,
		}
	default: // Updater
		return []string{
			"--min-replicas=1",
			fmt.Sprintf("--eviction-tolerance=%f", evictionTolerance),
			"--eviction-rate-burst=1",
			fmt.Sprintf("--eviction-rate-limit=%f", -1.0),
			"--evict-after-oom-threshold=" + evictAfterOOMThreshold,
			"--updater-interval=1m0s",
			"--stderrthreshold=info",
			"--v=2",
			"--kube-api-qps=200",
			"--kube-api-burst=250",
			"--leader-elect=true",
			"--leader-elect-resource-namespace=" + v.Namespace,
		}
	}
}

// ports are each container's ports, unnamed protocol (TCP by default) as Gardener declares them.
var ports = map[string][]corev1.ContainerPort{
	AdmissionController: {{Name: "metrics", ContainerPort: admissionControllerMetrics}, {Name: "server", ContainerPort: WebhookPort}},
	Recommender:         {{Name: "server", ContainerPort: serverPort}, {Name: "metrics", ContainerPort: recommenderMetrics}},
	Updater:             {{Name: "server", ContainerPort: serverPort}, {Name: "metrics", ContainerPort: updaterMetrics}},
}

// requests are Gardener's: the seed's recommender is not autoscaled (it cannot scale itself), so
// it starts large enough for big seeds; the others start small and are autoscaled.
var requests = map[string]corev1.ResourceList{
	AdmissionController: {corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("30Mi")},
	Recommender:         {corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("800M")},
	Updater:             {corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("15Mi")},
}

// haTypes are the high-availability-config types: the admission controller serves a webhook.
var haTypes = map[string]string{AdmissionController: "server", Recommender: "controller", Updater: "controller"}

// selector is the label set a component's Deployment, Service and PDB select its pods by.
func selector(component string) map[string]string { return map[string]string{"app": component} }

// withRole is the selector with gardener.cloud/role=vpa.
func withRole(component string) map[string]string {
	out := selector(component)
	maps.Copy(out, roleLabel())
	return out
}

// livenessProbe is relaxed: losing the VPA for a while hurts little, restarting it under load
// more.
func livenessProbe() *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/health-check", Port: intstr.FromString("metrics"), Scheme: corev1.URISchemeHTTP,
		}},
		InitialDelaySeconds: 120, PeriodSeconds: 60, TimeoutSeconds: 30, SuccessThreshold: 1, FailureThreshold: 3,
	}
}

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
		Name:            containerNames[component],
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            args(component, v),
		LivenessProbe:   livenessProbe(),
		Ports:           ports[component],
		Resources:       corev1.ResourceRequirements{Requests: requests[component]},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
	}
	if component != Recommender {
		container.Env = []corev1.EnvVar{{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
	}
	pod := corev1.PodSpec{PriorityClassName: priorityClass(v, component), ServiceAccountName: component}
	if component == AdmissionController {
		container.VolumeMounts = []corev1.VolumeMount{{Name: tlsVolume, MountPath: tlsMountPath, ReadOnly: true}}
		pod.Volumes = []corev1.Volume{tlsVolumeOf(v)}
	}
	pod.Containers = []corev1.Container{container}
	n := replicas.HighAvailability(v.HighAvailability)
	if n > 1 {
		pod.TopologySpreadConstraints = kube.SpreadOverNodesAndZones(selector(component))
	}
	labels := withRole(component)
	labels["high-availability-config.resources.gardener.cloud/type"] = haTypes[component]
	podLabels := withRole(component)
	podLabels["networking.gardener.cloud/to-dns"] = "allowed"
	podLabels["networking.gardener.cloud/to-runtime-apiserver"] = "allowed"
	d := kube.Deployment(meta(component, v.Namespace, labels), selector(component), n, pod)
	d.Spec.Template.Labels = podLabels
	return d
}

// tlsVolumeOf projects the CA bundle (bundle.crt) and the serving certificate (tls.crt, tls.key)
// into one directory. The engine's Secrets carry the CA as ca.crt; it is mounted under the name
// Gardener's CA bundle Secrets use.
func tlsVolumeOf(v Values) corev1.Volume {
	caSecret := v.CASecretName
	if caSecret == "" {
		caSecret = v.TLSSecretName
	}
	secret := func(name string, keys ...[2]string) corev1.VolumeProjection {
		var items []corev1.KeyToPath
		for _, k := range keys {
			items = append(items, corev1.KeyToPath{Key: k[0], Path: k[1]})
		}
		return corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Items: items}}
	}
	return corev1.Volume{Name: tlsVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](0o644),
		Sources: []corev1.VolumeProjection{
			secret(caSecret, [2]string{"ca.crt", "bundle.crt"}),
			secret(v.TLSSecretName, [2]string{"tls.crt", "tls.crt"}, [2]string{"tls.key", "tls.key"}),
		},
	}}}
}

// disruptionBudgets let one pod of each component go at a time, unhealthy ones always.
func disruptionBudgets(namespace string) []runtime.Object {
	var out []runtime.Object
	for _, c := range components {
		out = append(out, &policyv1.PodDisruptionBudget{
			ObjectMeta: meta(c, namespace, roleLabel()),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: selector(c)},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		})
	}
	return out
}

// verticalAutoscalers scale the requests of the admission controller and the updater; the
// recommender would act on its own autoscaler, which a VPA cannot.
func verticalAutoscalers(namespace string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, c := range []string{AdmissionController, Updater} {
		out = append(out, autoscaler.Vertical(namespace, c, nil, c,
			autoscaler.ContainerPolicy{Container: autoscaler.AllContainers, ControlledValues: autoscaler.RequestsOnly}))
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
