package dependencywatchdog

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// The facts of pkg/component/nodemanagement/dependencywatchdog/bootstrap.go in gardener/gardener
// v1.120.0: the configuration's mount, the metrics port and the container's name.
const (
	configVolume  = "config"
	configDir     = "/etc/dependency-watchdog/config"
	metricsPort   = 9643
	containerName = "dependency-watchdog"
)

// haTypeLabel tells gardener-resource-manager's high-availability-config webhook that the
// instance is a controller: it sets the replicas (two in a seed's garden namespace, which carries
// no failure tolerance) and the spread.
const haTypeLabel = "high-availability-config.resources.gardener.cloud/type"

// selectorLabels select an instance's pods: app=dependency-watchdog-<role>, nothing else.
func selectorLabels(r Role) map[string]string {
	return map[string]string{"app": Name(r)}
}

// podLabels let the pods' traffic through the seed's NetworkPolicies: both instances resolve
// names and talk to the seed's API server; the prober also probes every shoot's kube-apiserver
// in-cluster and through its load balancer (the Istio ingress gateways, public or private
// addresses).
func podLabels(r Role) map[string]string {
	labels := map[string]string{
		"networking.gardener.cloud/to-dns":               "allowed",
		"networking.gardener.cloud/to-runtime-apiserver": "allowed",
	}
	if r == Prober {
		maps.Copy(labels, map[string]string{
			"networking.gardener.cloud/to-public-networks":                                             "allowed",
			"networking.gardener.cloud/to-private-networks":                                            "allowed",
			"networking.resources.gardener.cloud/to-all-istio-ingresses-istio-ingressgateway-tcp-9443": "allowed",
			"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443":                 "allowed",
		})
	}
	maps.Copy(labels, selectorLabels(r))
	return labels
}

// command is the container's command line, flag for flag in gardenlet's order.
func command(r Role) []string {
	out := []string{"/usr/local/bin/dependency-watchdog", string(r), "--config-file=" + configDir + "/" + ConfigKey}
	if r == Prober {
		out = append(out, "--kube-api-qps=20.0", "--kube-api-burst=100", "--zap-log-level=INFO")
	}
	return append(out, "--enable-leader-election=true")
}

// configMap is the configuration, content-addressed and immutable like every ConfigMap gardenlet
// hands to a workload.
func configMap(r Role, ns, config string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapBaseName(r), Namespace: ns, Labels: selectorLabels(r)},
		Data:       map[string]string{ConfigKey: config},
	}
	unique.ConfigMap(cm)
	return cm
}

func deployment(r Role, ns, image, configMapName string) *appsv1.Deployment {
	labels := selectorLabels(r)
	labels[haTypeLabel] = "controller"
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name(r), Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: selectorLabels(r)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels(r)},
				Spec: corev1.PodSpec{
					PriorityClassName:             priorityclasses.System800,
					ServiceAccountName:            Name(r),
					TerminationGracePeriodSeconds: ptr.To[int64](5),
					Containers: []corev1.Container{{
						Name:            containerName,
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         command(r),
						Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: metricsPort, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{
								corev1.ResourceCPU:    resource.MustParse("200m"),
								corev1.ResourceMemory: resource.MustParse("256Mi"),
							},
							Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
						},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
						VolumeMounts:    []corev1.VolumeMount{{Name: configVolume, MountPath: configDir, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: configVolume, VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMapName}},
					}}},
				},
			},
		},
	}
	unique.InjectReferences(d)
	return d
}

// disruptionBudget lets one pod of the instance go at a time, unhealthy ones always.
func disruptionBudget(r Role, ns string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: Name(r), Namespace: ns, Labels: selectorLabels(r)},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
			Selector:                   &metav1.LabelSelector{MatchLabels: selectorLabels(r)},
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// verticalAutoscaler scales the instance's requests, never below 50Mi of memory for the prober
// and 25Mi for the weeder.
func verticalAutoscaler(r Role, ns string) *unstructured.Unstructured {
	minMemory := "25Mi"
	if r == Prober {
		minMemory = "50Mi"
	}
	return autoscaler.Vertical(ns, Name(r), nil, Name(r),
		autoscaler.ContainerPolicy{Container: autoscaler.AllContainers, MinAllowed: map[string]string{"memory": minMemory}})
}
