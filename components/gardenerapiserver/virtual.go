package gardenerapiserver

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// APIService is one group version gardener-apiserver serves.
type APIService struct {
	Group, Version string
	// GroupPriorityMinimum and VersionPriority order discovery; Gardener's documentation gives no
	// values, so every Gardener group sits at 10000, above the built-in groups, and within
	// core.gardener.cloud v1beta1, which holds nearly all of its kinds, is preferred over v1.
	GroupPriorityMinimum, VersionPriority int64
}

// APIServices are the group versions gardener-apiserver serves, as the API reference lists them:
// core v1beta1 (Gardener's "Core" docs/api-reference/core.md) and v1 (Gardener's "Core V1"
// docs/api-reference/core-v1.md), operations v1alpha1 (Gardener's "Operations"
// docs/api-reference/operations.md), security v1alpha1 (Gardener's "Security"
// docs/api-reference/security.md), seedmanagement v1alpha1 (Gardener's "Seedmanagement"
// docs/api-reference/seedmanagement.md) and settings v1alpha1 (Gardener's "Settings"
// docs/api-reference/settings.md). authentication.gardener.cloud is only a subresource group and
// must not be registered (Gardener's "Authentication" docs/api-reference/authentication.md);
// operator and extensions are CRDs.
var APIServices = []APIService{
	{"core.gardener.cloud", "v1", 10000, 10},
	{"core.gardener.cloud", "v1beta1", 10000, 20},
	{"operations.gardener.cloud", "v1alpha1", 10000, 20},
	{"security.gardener.cloud", "v1alpha1", 10000, 20},
	{"seedmanagement.gardener.cloud", "v1alpha1", 10000, 20},
	{"settings.gardener.cloud", "v1alpha1", 10000, 20},
}

func (r resolved) apiServices() []*unstructured.Unstructured {
	labels := gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))
	out := make([]*unstructured.Unstructured, 0, len(APIServices))
	for _, s := range APIServices {
		spec := map[string]any{
			"group":                s.Group,
			"version":              s.Version,
			"groupPriorityMinimum": s.GroupPriorityMinimum,
			"versionPriority":      s.VersionPriority,
			"service": map[string]any{
				"namespace": gardenercontrolplane.VirtualSystemNamespace,
				"name":      Name,
				"port":      int64(443),
			},
		}
		if r.Values.CABundle != "" {
			spec["caBundle"] = gardenercontrolplane.CABundle(r.Values.CABundle)
		}
		out = append(out, kube.Custom("apiregistration.k8s.io/v1", "APIService", "", s.Version+"."+s.Group, labels, map[string]any{"spec": spec}))
	}
	return out
}

// virtualService is the kube-system/gardener-apiserver Service the APIServices point at
// (gardener-operator manages it with its Endpoints, Gardener's "Gardener Operator"
// docs/concepts/operator.md). The virtual garden has no pods: the Service leads to the runtime
// cluster's Service. For an IP address it is selectorless with Endpoints (and an EndpointSlice, as
// newer aggregators read those), which the aggregator follows when the virtual kube-apiserver
// routes to endpoints (--enable-aggregator-routing); for a DNS name it is an ExternalName Service,
// which the aggregator follows when it routes to Services.
func (r resolved) virtualService() []runtime.Object {
	labels := gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))
	meta := metav1.ObjectMeta{Name: Name, Namespace: gardenercontrolplane.VirtualSystemNamespace, Labels: labels}
	ip := r.runtimeServiceIP()
	if ip == nil {
		return []runtime.Object{&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: r.Values.RuntimeServiceAddress,
			Ports:        []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(443)}},
		}}}
	}
	// The runtime Service listens on 443, so the endpoint port is 443 as well. The Endpoints
	// are not mirrored into a second EndpointSlice, since the component renders its own.
	service := &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(443)}},
		},
	}
	endpoints := &corev1.Endpoints{ //nolint:staticcheck // Gardener's docs/concepts/operator.md names Endpoints; the slice below serves newer readers.
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: meta.Namespace, Labels: with(labels, "endpointslice.kubernetes.io/skip-mirror", "true")},
		Subsets: []corev1.EndpointSubset{{ //nolint:staticcheck // see above
			Addresses: []corev1.EndpointAddress{{IP: r.Values.RuntimeServiceAddress}},
			Ports:     []corev1.EndpointPort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443}}, //nolint:staticcheck // see above
		}},
	}
	family := discoveryv1.AddressTypeIPv4
	if ip.To4() == nil {
		family = discoveryv1.AddressTypeIPv6
	}
	portName, proto, port, ready := "https", corev1.ProtocolTCP, int32(443), true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: meta.Namespace, Labels: with(with(labels,
			discoveryv1.LabelServiceName, Name), discoveryv1.LabelManagedBy, "declarative-gardener")},
		AddressType: family,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{r.Values.RuntimeServiceAddress},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		}},
		Ports: []discoveryv1.EndpointPort{{Name: &portName, Protocol: &proto, Port: &port}},
	}
	return []runtime.Object{service, endpoints, slice}
}

// rbac lets gardener-apiserver delegate authentication and authorization to the virtual
// kube-apiserver (system:auth-delegator, and reading kube-system/extension-apiserver-authentication
// through extension-apiserver-authentication-reader), and gives its admission plugins read access
// to the Kubernetes objects they check (namespaces, secrets, quotas, RBAC, webhook and admission
// policy configurations, priority and fairness settings).
func (r resolved) rbac() []runtime.Object {
	labels := gardenercontrolplane.Labels(gardenercontrolplane.Role(Name))
	subject := r.Subject()
	read := []string{"get", "list", "watch"}
	role, binding := r.ClusterRole(append([]rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces", "resourcequotas", "secrets", "serviceaccounts"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings", "clusterroles", "rolebindings", "roles"}, Verbs: read},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{
			"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "mutatingwebhookconfigurations",
			"validatingadmissionpolicies", "validatingadmissionpolicybindings", "validatingwebhookconfigurations",
		}, Verbs: read},
		{APIGroups: []string{"flowcontrol.apiserver.k8s.io"}, Resources: []string{"flowschemas", "prioritylevelconfigurations"}, Verbs: read},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}, gardenercontrolplane.LeaderElectionRules()...))
	delegator := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: gardenercontrolplane.ClusterRoleName(Name) + ":auth-delegator", Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
		Subjects:   []rbacv1.Subject{subject},
	}
	reader := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: gardenercontrolplane.ClusterRoleName(Name) + ":auth-reader", Namespace: "kube-system", Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		Subjects:   []rbacv1.Subject{subject},
	}
	return []runtime.Object{role, binding, delegator, reader}
}

// with returns a copy of labels with one more label.
func with(labels map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[key] = value
	return out
}
