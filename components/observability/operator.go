package observability

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// PrometheusOperatorName names prometheus-operator's Deployment, Service and ServiceAccount
// (Gardener's "Gardener Operator" docs/concepts/operator.md).
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

// operatorObjects renders prometheus-operator: RBAC, Deployment and Service. In the garden it
// watches only the stack's namespace, where Gardener's documentation places every object that
// extends the stack (Gardener's docs/concepts/operator.md). A seed's operator watches all
// namespaces: it also runs the Prometheus and Alertmanager instances of the shoot control planes
// (Gardener's "Logging And Monitoring" docs/extensions/logging-and-monitoring.md); so does the
// garden's when the runtime cluster is a seed too, since the seed then uses the garden's
// (Gardener's docs/concepts/operator.md).
func operatorObjects(s stack, allNamespaces bool) []runtime.Object {
	out := clusterRBAC(PrometheusOperatorName, s.namespace, operatorRules)
	args := []string{"--prometheus-config-reloader=" + s.img[ImagePrometheusConfigReloader]}
	if !allNamespaces {
		args = append(args, "--namespaces="+s.namespace)
	}
	args = append(args, fmt.Sprintf("--web.listen-address=:%d", operatorPort), "--log-level=info")
	c := s.container(PrometheusOperatorName, ImagePrometheusOperator, "10m", "50Mi")
	c.Args, c.Ports, c.ReadinessProbe = args, tcpPort("http", operatorPort), httpProbe("/healthz", "http")
	pod := corev1.PodSpec{ServiceAccountName: PrometheusOperatorName, SecurityContext: kube.NonRootPodOwningVolumes(nobody), Containers: []corev1.Container{c}}
	return append(out,
		s.deployment(PrometheusOperatorName, map[string]string{toRuntimeAPIServer: allowed}, pod),
		service(PrometheusOperatorName, s.namespace, PrometheusOperatorName, appLabels(PrometheusOperatorName), "http", operatorPort, intstr.FromString("http")),
	)
}

// httpProbe is a readiness probe on a path of a named port.
func httpProbe(path, port string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port)},
	}}
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
