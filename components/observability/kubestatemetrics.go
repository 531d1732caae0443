package observability

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

// KubeStateMetricsName names kube-state-metrics' Deployment, Service and ServiceAccount
// (Gardener's "Gardener Operator" docs/concepts/operator.md).
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

// kubeStateMetricsObjects renders kube-state-metrics: RBAC, Deployment and Service. With
// access, it exports the objects of the shoot that access reaches (a shoot control plane's
// kube-state-metrics, on which the shoot's node alerts depend, Gardener's "Alerting"
// docs/monitoring/alerting.md) instead of those of the cluster it runs in; its permissions are then
// the shoot's (shootRBAC).
func kubeStateMetricsObjects(s stack, access *shootaccess.Access) []runtime.Object {
	var out []runtime.Object
	c := s.container(KubeStateMetricsName, ImageKubeStateMetrics, "10m", "50Mi")
	c.Args = []string{fmt.Sprintf("--port=%d", ksmPort), fmt.Sprintf("--telemetry-port=%d", ksmTelemetryPort)}
	c.Ports = append(tcpPort("metrics", ksmPort), tcpPort("telemetry", ksmTelemetryPort)...)
	c.ReadinessProbe = httpProbe("/healthz", "metrics")
	pod := corev1.PodSpec{SecurityContext: kube.NonRootPodOwningVolumes(nobody), Containers: []corev1.Container{c}}
	network := map[string]string{toRuntimeAPIServer: allowed}
	if access == nil {
		out = clusterRBAC(KubeStateMetricsName, s.namespace, ksmRules)
		pod.ServiceAccountName = KubeStateMetricsName
	} else {
		out = append(out, access.Secret())
		pod.AutomountServiceAccountToken = ptr.To(false)
		pod.Containers[0].Args = append(pod.Containers[0].Args, "--kubeconfig="+shootaccess.KubeconfigPath)
		pod.Containers[0].VolumeMounts = []corev1.VolumeMount{access.Mount()}
		pod.Volumes = []corev1.Volume{access.Volume()}
		network = toShootAPIServer(map[string]string{})
	}
	return append(out,
		s.deployment(KubeStateMetricsName, network, pod),
		s.scrapable(service(KubeStateMetricsName, s.namespace, KubeStateMetricsName, appLabels(KubeStateMetricsName), "metrics", ksmPort, intstr.FromString("metrics")), ksmPort),
	)
}

// ksmEndpoint scrapes kube-state-metrics; honorLabels keeps the namespace and pod labels of the
// exported objects.
func ksmEndpoint() map[string]any {
	return map[string]any{"port": "metrics", "honorLabels": true}
}

// serviceMonitor has the Prometheus labelled label scrape the endpoints of the Services labelled
// app=<app> in namespace. It is named and labelled like the documented examples,
// <label>-<component> with prometheus=<label> (Gardener's docs/concepts/operator.md, "Logging And
// Monitoring" docs/extensions/logging-and-monitoring.md).
func serviceMonitor(namespace, label, app string, endpoints ...map[string]any) *unstructured.Unstructured {
	return serviceMonitorSelecting(namespace, label, app, appLabels(app), endpoints...)
}

// serviceMonitorSelecting is serviceMonitor for Services with other labels than app=<name>.
func serviceMonitorSelecting(namespace, label, name string, selector map[string]string, endpoints ...map[string]any) *unstructured.Unstructured {
	eps := make([]any, len(endpoints))
	for i, e := range endpoints {
		eps[i] = e
	}
	spec := map[string]any{
		"selector":  map[string]any{"matchLabels": kube.AnyMap(selector)},
		"endpoints": eps,
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: label}
	return kube.Custom("monitoring.coreos.com/v1", "ServiceMonitor", namespace, label+"-"+name, labels, map[string]any{"spec": spec})
}
