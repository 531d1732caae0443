package observability

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// PrometheusOperatorName names prometheus-operator's Deployment, Service, ServiceAccount,
// ClusterRole, ClusterRoleBinding and VerticalPodAutoscaler
// (pkg/component/observability/monitoring/prometheusoperator in gardener/gardener v1.120.0).
const PrometheusOperatorName = "prometheus-operator"

// PrometheusClusterRole is the ClusterRole every Prometheus' ServiceAccount is bound to: service
// discovery and the kubelets' metrics (prometheusoperator/rbac.go).
const PrometheusClusterRole = "prometheus"

// operatorPort serves the operator's metrics and health endpoint (its default listen address).
const operatorPort = 8080

// operatorUser is the user of the prometheus-operator image (prometheusoperator/deployment.go).
const operatorUser int64 = 65532

// operatorLabels label and select every object of prometheus-operator.
func operatorLabels() map[string]string { return map[string]string{labelApp: PrometheusOperatorName} }

// fullAccess are the verbs prometheus-operator has on what it owns.
var fullAccess = []string{"create", "get", "list", "watch", "patch", "update", "delete", "deletecollection"}

// operatorRules are prometheus-operator's permissions, rule for rule (prometheusoperator/rbac.go).
var operatorRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{
		"alertmanagers", "alertmanagers/finalizers", "alertmanagers/status", "alertmanagerconfigs",
		"prometheuses", "prometheuses/finalizers", "prometheuses/status",
		"prometheusagents", "prometheusagents/finalizers", "prometheusagents/status",
		"thanosrulers", "thanosrulers/finalizers", "thanosrulers/status",
		"scrapeconfigs", "servicemonitors", "podmonitors", "probes", "prometheusrules",
	}, Verbs: fullAccess},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: fullAccess},
	{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: fullAccess},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"services", "services/finalizers", "endpoints"}, Verbs: []string{"get", "create", "update", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: read},
	{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"patch", "create"}},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: read},
	{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses"}, Verbs: []string{"get"}},
}

// prometheusRules are the permissions of every Prometheus: service discovery, the kubelets'
// metrics and /metrics of the API server (clusterRolePrometheus in prometheusoperator/rbac.go).
var prometheusRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes", "services", "endpoints", "pods"}, Verbs: read},
	{APIGroups: []string{""}, Resources: []string{"nodes/metrics", "nodes/proxy"}, Verbs: []string{"get"}},
	{NonResourceURLs: []string{"/metrics", "/metrics/*"}, Verbs: []string{"get"}},
}

// operatorObjects renders prometheus-operator as gardenlet and gardener-operator deploy it
// (prometheusoperator/deployment.go, service.go, serviceaccount.go, rbac.go, vpa.go): the
// ServiceAccount, the headless Service, the Deployment, its VerticalPodAutoscaler, its
// ClusterRole and binding and the ClusterRole prometheus of the Prometheus instances. It watches
// every namespace; restricted, it watches only the stack's namespace, where the garden-only stack
// keeps every object that extends it (Gardener's docs/concepts/operator.md).
func operatorObjects(s stack, allNamespaces bool) []runtime.Object {
	labels := operatorLabels()
	args := []string{
		"--prometheus-config-reloader=" + s.img[ImagePrometheusConfigReloader],
		"--config-reloader-cpu-request=0",
		"--config-reloader-cpu-limit=0",
		"--config-reloader-memory-request=20M",
		"--config-reloader-memory-limit=0",
		"--enable-config-reloader-probes=false",
	}
	if !allNamespaces {
		args = append(args, "--namespaces="+s.namespace)
	}
	c := corev1.Container{
		Name:            PrometheusOperatorName,
		Image:           s.img[ImagePrometheusOperator],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            args,
		Env:             []corev1.EnvVar{{Name: "GOGC", Value: "30"}},
		Resources:       requests("100m", "100Mi"),
		SecurityContext: kube.UnprivilegedReadOnly(),
		Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: operatorPort}},
	}
	pod := corev1.PodSpec{
		ServiceAccountName: PrometheusOperatorName,
		PriorityClassName:  s.priorityClass,
		SecurityContext:    kube.NonRootPod(operatorUser),
		Containers:         []corev1.Container{c},
	}
	podLabels := merge(labels, map[string]string{toDNS: allowed, toRuntimeAPIServer: allowed})
	svc := &corev1.Service{
		ObjectMeta: meta(PrometheusOperatorName, s.namespace, labels),
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  labels,
			Ports:     []corev1.ServicePort{{Name: "http", Port: operatorPort, TargetPort: intstr.FromString("http")}},
		},
	}
	return []runtime.Object{
		serviceAccount(PrometheusOperatorName, s.namespace, labels),
		svc,
		s.deployment(PrometheusOperatorName, labels, labels, podLabels, pod),
		workloadVPA(s.namespace, PrometheusOperatorName, labels, "Deployment", PrometheusOperatorName,
			containerPolicy{container: "*", minAllowed: map[string]string{"memory": "100Mi"}}),
		&rbacv1.ClusterRole{ObjectMeta: meta(PrometheusOperatorName, "", labels), Rules: operatorRules},
		clusterRoleBinding(PrometheusOperatorName, labels, PrometheusOperatorName, PrometheusOperatorName, s.namespace),
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: PrometheusClusterRole}, Rules: prometheusRules},
	}
}

// service renders a ClusterIP Service with one port.
func service(name, namespace string, labels, selector map[string]string, portName string, port int32, target intstr.IntOrString) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(name, namespace, labels),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: portName, Port: port, TargetPort: target, Protocol: corev1.ProtocolTCP}},
		},
	}
}
