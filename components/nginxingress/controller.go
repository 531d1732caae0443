package nginxingress

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

const (
	// clusterRoleName names the controller's ClusterRole and binding; one controller runs per
	// cluster (a runtime cluster that is also a seed runs the garden's, Gardener's "Gardener Operator"
	// docs/concepts/operator.md).
	clusterRoleName = "gardener.cloud:nginx-ingress"
	// electionID is the Lease the replicas elect the status updater with.
	electionID = "nginx-ingress-controller-leader"
	// metricsPort serves /healthz and the controller's metrics.
	metricsPort int32 = 10254
	// nginxUser and nginxGroup are the www-data user and group of the controller image.
	nginxUser, nginxGroup int64 = 101, 82
)

// DefaultConfig is the controller's ConfigMap before Values.Config: an operator's choice for a
// controller that serves many host names (Gardener's documentation is silent on it).
func DefaultConfig() map[string]string {
	return map[string]string{
		"server-name-hash-bucket-size": "256",
		"use-proxy-protocol":           "false",
		"worker-processes":             "2",
	}
}

// ControllerClass is the IngressClass's spec.controller value the controller claims.
func ControllerClass(ingressClass string) string { return "k8s.io/" + ingressClass }

// controllerObjects renders the controller's RBAC, ConfigMap, IngressClass, Deployment, Service
// and PodDisruptionBudget.
func controllerObjects(v Values, image string) []runtime.Object {
	ns, labels := v.Namespace, ControllerLabels()
	meta := metav1.ObjectMeta{Namespace: ns, Name: ControllerName, Labels: labels}
	cfg := DefaultConfig()
	maps.Copy(cfg, v.Config)
	n := replicas.HighAvailability(v.HighAvailability)
	svcMeta := meta
	svcMeta.Annotations = maps.Clone(v.LoadBalancerAnnotations)
	rbac := kube.ServiceAccountRBAC(meta, clusterRoleName, clusterRules(), []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "pods", "secrets", "endpoints"}, Verbs: []string{"get"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{electionID}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
	})
	return append(rbac,
		&corev1.ConfigMap{ObjectMeta: meta, Data: cfg},
		&networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: v.IngressClass, Labels: labels},
			Spec:       networkingv1.IngressClassSpec{Controller: ControllerClass(v.IngressClass)},
		},
		kube.Deployment(meta, labels, n, controllerPod(v, image, n)),
		&corev1.Service{
			ObjectMeta: svcMeta,
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeLoadBalancer,
				Selector: labels,
				Ports: []corev1.ServicePort{
					{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
					{Name: "https", Port: 443, TargetPort: intstr.FromString("https"), Protocol: corev1.ProtocolTCP},
				},
			},
		},
		disruption.Budget(ns, ControllerName, labels),
	)
}

// clusterRules let the controller watch Ingresses of every namespace with their Services,
// endpoints and TLS Secrets, and report the load balancer address in their status.
func clusterRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "endpoints", "namespaces", "nodes", "pods", "secrets", "services"}, Verbs: read},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses", "ingressclasses"}, Verbs: read},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
}

// controllerPod runs ingress-nginx for the one IngressClass, with the default backend for
// unmatched requests and the Service's load balancer address published to Ingress status.
func controllerPod(v Values, image string, n int32) corev1.PodSpec {
	labels := ControllerLabels()
	return corev1.PodSpec{
		ServiceAccountName:            ControllerName,
		PriorityClassName:             v.PriorityClassName,
		TerminationGracePeriodSeconds: ptr.To[int64](300),
		TopologySpreadConstraints:     spread(n, labels),
		SecurityContext:               &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{
			Name:  "nginx-ingress-controller",
			Image: image,
			Args: []string{
				"/nginx-ingress-controller",
				"--default-backend-service=$(POD_NAMESPACE)/" + BackendName,
				"--publish-service=$(POD_NAMESPACE)/" + ControllerName,
				"--election-id=" + electionID,
				"--update-status=true",
				"--annotations-prefix=nginx.ingress.kubernetes.io",
				"--configmap=$(POD_NAMESPACE)/" + ControllerName,
				"--ingress-class=" + v.IngressClass,
				"--controller-class=" + ControllerClass(v.IngressClass),
				"--watch-ingress-without-class=false",
			},
			Env: []corev1.EnvVar{
				fieldEnv("POD_NAME", "metadata.name"),
				fieldEnv("POD_NAMESPACE", "metadata.namespace"),
				{Name: "LD_PRELOAD", Value: "/usr/local/lib/libmimalloc.so"},
			},
			Ports: []corev1.ContainerPort{
				{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
				{Name: "https", ContainerPort: 443, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", ContainerPort: metricsPort, Protocol: corev1.ProtocolTCP},
			},
			LivenessProbe:  healthz(metricsPort, 5),
			ReadinessProbe: healthz(metricsPort, 3),
			// Let in-flight connections finish before nginx stops.
			Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/wait-shutdown"}}}},
			// Requests only, no limits, so that a traffic peak is not throttled (operator choice).
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("256Mi"),
			}},
			// The www-data user binds ports 80 and 443 with NET_BIND_SERVICE and nothing else.
			SecurityContext: &corev1.SecurityContext{
				RunAsUser:                ptr.To(nginxUser),
				RunAsGroup:               ptr.To(nginxGroup),
				RunAsNonRoot:             ptr.To(true),
				AllowPrivilegeEscalation: ptr.To(false),
				ReadOnlyRootFilesystem:   ptr.To(false),
				Capabilities: &corev1.Capabilities{
					Add:  []corev1.Capability{"NET_BIND_SERVICE"},
					Drop: []corev1.Capability{"ALL"},
				},
			},
		}},
	}
}
