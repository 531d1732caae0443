package observability

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// PrometheusOperatorName names prometheus-operator's Deployment, Service and ServiceAccount
// (S4:12752).
const PrometheusOperatorName = "prometheus-operator"

// operatorPort serves the operator's metrics and health endpoint.
const operatorPort = 8080

// operatorRules are prometheus-operator's permissions, after the upstream project's RBAC: it
// owns the monitoring.coreos.com kinds, runs Prometheus and Alertmanager as StatefulSets with
// their configuration Secrets and ConfigMaps and governing Services, and reads what service
// discovery and namespace selectors need.
var operatorRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{
		"alertmanagers", "alertmanagers/finalizers", "alertmanagers/status", "alertmanagerconfigs",
		"prometheuses", "prometheuses/finalizers", "prometheuses/status",
		"prometheusagents", "prometheusagents/finalizers", "prometheusagents/status",
		"thanosrulers", "thanosrulers/finalizers", "thanosrulers/status",
		"servicemonitors", "servicemonitors/status", "podmonitors", "podmonitors/status",
		"probes", "probes/status", "prometheusrules", "prometheusrules/status", "scrapeconfigs", "scrapeconfigs/status",
	}, Verbs: []string{"*"}},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: []string{"*"}},
	{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"*"}},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"services", "services/finalizers"}, Verbs: []string{"get", "create", "update", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: []string{"get", "create", "update", "delete"}},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "create", "update", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}},
	{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: read},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: read},
	{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses"}, Verbs: []string{"get"}},
	{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
}

// operatorObjects renders prometheus-operator: RBAC, Deployment and Service. It watches only
// the stack's namespace, where the documents place every object that extends the stack
// (S4:12846-12935), so that a seed's prometheus-operator in the same cluster does not compete.
func operatorObjects(namespace string, img map[string]string) []runtime.Object {
	out := clusterRBAC(PrometheusOperatorName, namespace, operatorRules)
	labels := appLabels(PrometheusOperatorName)
	pod := corev1.PodSpec{
		ServiceAccountName: PrometheusOperatorName,
		PriorityClassName:  PriorityClass,
		SecurityContext:    podSecurity(nobody),
		Containers: []corev1.Container{{
			Name:            PrometheusOperatorName,
			Image:           img[ImagePrometheusOperator],
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args: []string{
				"--prometheus-config-reloader=" + img[ImagePrometheusConfigReloader],
				"--namespaces=" + namespace,
				fmt.Sprintf("--web.listen-address=:%d", operatorPort),
				"--log-level=info",
			},
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: operatorPort, Protocol: corev1.ProtocolTCP}},
			Resources:       requests("10m", "50Mi"),
			SecurityContext: containerSecurity(true),
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")},
			}},
		}},
	}
	return append(out,
		&appsv1.Deployment{
			ObjectMeta: meta(PrometheusOperatorName, namespace, PrometheusOperatorName),
			Spec: appsv1.DeploymentSpec{
				Replicas:             ptr.To(replicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				Selector:             &metav1.LabelSelector{MatchLabels: labels},
				Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
			},
		},
		service(PrometheusOperatorName, namespace, PrometheusOperatorName, labels, "http", operatorPort, intstr.FromString("http")),
	)
}

// service renders a ClusterIP Service with one port.
func service(name, namespace, app string, selector map[string]string, portName string, port int32, target intstr.IntOrString) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(name, namespace, app),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: portName, Port: port, TargetPort: target, Protocol: corev1.ProtocolTCP}},
		},
	}
}
