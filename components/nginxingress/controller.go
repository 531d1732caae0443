package nginxingress

import (
	appsv1 "k8s.io/api/apps/v1"
	"maps"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/autoscaler"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

const (
	// rbacName names the ClusterRole and binding; the Role and RoleBinding add :role and
	// :role-binding.
	rbacName = "gardener.cloud:seed:nginx-ingress"
	// electionID is the Lease the replicas elect the status updater with.
	electionID = "ingress-controller-seed-leader"
	// healthPort serves /healthz (and the controller's metrics).
	healthPort int32 = 10254
	// controllerReplicas: the controller is a server that must survive a node's loss.
	controllerReplicas int32 = 2
)

// DefaultConfig is the controller's ConfigMap before Values.Config (getConfig in
// pkg/gardenlet/controller/seed/seed/nginxingress.go): snippets are allowed at the Critical risk
// level, which the seed's Plutono and Alertmanager Ingresses need; the seed controls all its
// Ingresses, so no user can inject configuration.
func DefaultConfig() map[string]string {
	return map[string]string{
		"allow-snippet-annotations":    "true",
		"annotations-risk-level":       "Critical",
		"server-name-hash-bucket-size": "256",
		"use-proxy-protocol":           "false",
		"worker-processes":             "2",
	}
}

// ControllerClass is the IngressClass's spec.controller value the controller claims.
func ControllerClass(ingressClass string) string { return "k8s.io/" + ingressClass }

// configMap is the controller's content-addressed configuration.
func configMap(v Values) *corev1.ConfigMap {
	cfg := DefaultConfig()
	maps.Copy(cfg, v.Config)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ControllerName, Namespace: v.Namespace, Labels: ControllerLabels()}, Data: cfg}
	unique.ConfigMap(cm)
	return cm
}

// controllerObjects renders the controller's RBAC, ServiceAccount, ConfigMap, Service,
// Deployment, PodDisruptionBudget and IngressClass.
func controllerObjects(v Values, image string) []runtime.Object {
	ns, app := v.Namespace, map[string]string{"app": appLabel}
	cm := configMap(v)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: serviceAccountName, Namespace: ns, Labels: app}, AutomountServiceAccountToken: ptr.To(false)}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccountName, Namespace: ns}}
	return []runtime.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: rbacName, Labels: app}, Rules: clusterRules()},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: rbacName, Labels: app},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: rbacName},
			Subjects:   subjects,
		},
		sa,
		cm,
		controllerService(v),
		controllerDeployment(v, image, cm.Name),
		&policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: ControllerName, Namespace: ns, Labels: ControllerLabels()},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable:               ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: ControllerLabels()},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: rbacName + ":role", Namespace: ns, Labels: app}, Rules: namespaceRules()},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: rbacName + ":role-binding", Namespace: ns, Labels: app},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: rbacName + ":role"},
			Subjects:   subjects,
		},
		&networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: v.IngressClass, Labels: ControllerLabels()},
			Spec:       networkingv1.IngressClassSpec{Controller: ControllerClass(v.IngressClass)},
		},
	}
}

// clusterRules let the controller watch Ingresses of every namespace with their Services,
// endpoints and TLS Secrets, and report the address in their status; in Gardener's order.
func clusterRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"endpoints", "nodes", "pods", "secrets"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"services", "configmaps"}, Verbs: []string{"get", "list", "update", "watch"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingressclasses"}, Verbs: read},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
	}
}

// namespaceRules are the controller's permissions in its namespace, among them its election Lease.
func namespaceRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces", "pods", "secrets"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: []string{"create", "get", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{electionID}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
	}
}

// controllerService is the controller's Service: ClusterIP behind Istio, exported to every
// namespace and reachable from the Istio ingress namespaces; of type LoadBalancer otherwise. It
// carries the load balancer annotations either way.
func controllerService(v Values) *corev1.Service {
	annotations := maps.Clone(v.LoadBalancerAnnotations)
	typ := corev1.ServiceTypeLoadBalancer
	if v.Istio != nil {
		typ = corev1.ServiceTypeClusterIP
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations["networking.istio.io/exportTo"] = "*"
		annotations["networking.resources.gardener.cloud/namespace-selectors"] = `[{"matchLabels":{"gardener.cloud/role":"istio-ingress"}}]`
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ControllerName, Namespace: v.Namespace, Labels: ControllerLabels(), Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type: typ,
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(80)},
				{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(443)},
			},
			Selector: ControllerLabels(),
		},
	}
}

// controllerArgs are the controller's command line, flag for flag in Gardener's order.
func controllerArgs(v Values, configMapName string) []string {
	return []string{
		"/nginx-ingress-controller",
		"--default-backend-service=" + v.Namespace + "/" + BackendName,
		"--enable-ssl-passthrough=true",
		"--publish-service=" + v.Namespace + "/" + ControllerName,
		"--election-id=" + electionID,
		"--update-status=true",
		"--annotations-prefix=nginx.ingress.kubernetes.io",
		"--configmap=" + v.Namespace + "/" + configMapName,
		"--ingress-class=" + v.IngressClass,
		"--controller-class=" + ControllerClass(v.IngressClass),
		"--enable-annotation-validation=true",
	}
}

// healthz probes /healthz on the health port, after 40s.
func healthz() *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(healthPort), Scheme: corev1.URISchemeHTTP}},
		InitialDelaySeconds: 40, PeriodSeconds: 10, SuccessThreshold: 1, TimeoutSeconds: 1, FailureThreshold: 3,
	}
}

// fieldEnv is an environment variable from the pod's own fields.
func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

// controllerDeployment runs the chroot image of ingress-nginx: it needs SYS_CHROOT, privilege
// escalation and no seccomp profile, so gardener-resource-manager's seccomp webhook skips it.
func controllerDeployment(v Values, image, configMapName string) *appsv1.Deployment {
	podLabels := withRelease(ControllerLabels())
	maps.Copy(podLabels, map[string]string{
		"networking.gardener.cloud/to-dns":                                    "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                      "allowed",
		"networking.resources.gardener.cloud/to-" + BackendName + "-tcp-8080": "allowed",
		"seccompprofile.resources.gardener.cloud/skip":                        "true",
	})
	d := kube.Deployment(metav1.ObjectMeta{Name: ControllerName, Namespace: v.Namespace, Labels: ControllerLabels()}, withRelease(ControllerLabels()), controllerReplicas, corev1.PodSpec{
		PriorityClassName: v.PriorityClassName,
		Containers: []corev1.Container{{
			Name:            ControllerName,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args:            controllerArgs(v, configMapName),
			SecurityContext: &corev1.SecurityContext{
				Capabilities: &corev1.Capabilities{
					Drop: []corev1.Capability{"ALL"},
					Add:  []corev1.Capability{"NET_BIND_SERVICE", "SYS_CHROOT"},
				},
				RunAsNonRoot:             ptr.To(true),
				RunAsUser:                ptr.To[int64](101),
				AllowPrivilegeEscalation: ptr.To(true),
				SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined},
			},
			Env:           []corev1.EnvVar{fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace")},
			LivenessProbe: healthz(),
			Ports: []corev1.ContainerPort{
				{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
				{Name: "https", ContainerPort: 443, Protocol: corev1.ProtocolTCP},
			},
			ReadinessProbe: healthz(),
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1500Mi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("375Mi")},
			},
		}},
		ServiceAccountName:            serviceAccountName,
		TerminationGracePeriodSeconds: ptr.To[int64](60),
	})
	d.Spec.Template.Labels = podLabels
	// The ConfigMap is the only reference: its annotation on the Deployment and its template.
	ref := map[string]string{unique.AnnotationKey("configmap", configMapName): configMapName}
	d.Annotations, d.Spec.Template.Annotations = ref, maps.Clone(ref)
	return d
}

// controllerVerticalAutoscaler scales the controller, never below 100Mi of memory.
func controllerVerticalAutoscaler(namespace string) *unstructured.Unstructured {
	return autoscaler.Vertical(namespace, ControllerName, nil, ControllerName,
		autoscaler.ContainerPolicy{Container: autoscaler.AllContainers, MinAllowed: map[string]string{"memory": "100Mi"}})
}
