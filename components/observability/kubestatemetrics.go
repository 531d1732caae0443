package observability

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// KubeStateMetricsName names kube-state-metrics' Deployment, Service and ServiceAccount
// (S4:12749).
const KubeStateMetricsName = "kube-state-metrics"

// Ports of kube-state-metrics: the object metrics and its own telemetry.
const (
	ksmPort          = 8080
	ksmTelemetryPort = 8081
)

// ksmRules let kube-state-metrics list and watch the kinds it exports metrics of.
var ksmRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{
		"configmaps", "endpoints", "limitranges", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes",
		"pods", "replicationcontrollers", "resourcequotas", "secrets", "services",
	}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "deployments", "replicasets", "statefulsets"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"batch"}, Resources: []string{"cronjobs", "jobs"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses", "networkpolicies"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "volumeattachments"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}, Verbs: []string{"list", "watch"}},
}

// kubeStateMetricsObjects renders kube-state-metrics: RBAC, Deployment and Service.
func kubeStateMetricsObjects(namespace string, img map[string]string) []runtime.Object {
	out := clusterRBAC(KubeStateMetricsName, namespace, ksmRules)
	labels := appLabels(KubeStateMetricsName)
	pod := corev1.PodSpec{
		ServiceAccountName: KubeStateMetricsName,
		PriorityClassName:  PriorityClass,
		SecurityContext:    podSecurity(nobody),
		Containers: []corev1.Container{{
			Name:            KubeStateMetricsName,
			Image:           img[ImageKubeStateMetrics],
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args: []string{
				fmt.Sprintf("--port=%d", ksmPort),
				fmt.Sprintf("--telemetry-port=%d", ksmTelemetryPort),
			},
			Ports: []corev1.ContainerPort{
				{Name: "metrics", ContainerPort: ksmPort, Protocol: corev1.ProtocolTCP},
				{Name: "telemetry", ContainerPort: ksmTelemetryPort, Protocol: corev1.ProtocolTCP},
			},
			Resources:       requests("10m", "50Mi"),
			SecurityContext: containerSecurity(true),
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")},
			}},
		}},
	}
	return append(out,
		&appsv1.Deployment{
			ObjectMeta: meta(KubeStateMetricsName, namespace, KubeStateMetricsName),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To(replicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             &metav1.LabelSelector{MatchLabels: labels},
				Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
			},
		},
		service(KubeStateMetricsName, namespace, KubeStateMetricsName, labels, "metrics", ksmPort, intstr.FromString("metrics")),
	)
}

// kubeStateMetricsMonitor has the Garden Prometheus scrape kube-state-metrics. It is named and
// labelled like the documented extension example, garden-<component> with prometheus=garden
// (S4:12850-12868). honorLabels keeps the namespace and pod labels of the exported objects.
func kubeStateMetricsMonitor(namespace string) *unstructured.Unstructured {
	spec := map[string]any{
		"selector":  map[string]any{"matchLabels": map[string]any{"app": KubeStateMetricsName}},
		"endpoints": []any{map[string]any{"port": "metrics", "honorLabels": true}},
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: GardenPrometheusLabel}
	return kube.Custom("monitoring.coreos.com/v1", "ServiceMonitor", namespace, "garden-"+KubeStateMetricsName, labels, map[string]any{"spec": spec})
}
