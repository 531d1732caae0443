package observability

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// PriorityClass is the class of every pod of the stack in the garden runtime cluster
// (Gardener's "Priority Classes" docs/development/priority-classes.md: fluent-operator, fluent-bit,
// gardener-metrics-exporter, kube-state-metrics, plutono, vali, prometheus-operator,
// alertmanager-garden, prometheus-garden, blackbox-exporter, prometheus-longterm).
const PriorityClass = priorityclasses.GardenSystem100

// stackReplicas is the replica count of the stack's workloads: observability components run one
// replica whatever the availability requirements (Gardener's "High Availability Of Components"
// docs/development/high-availability-of-components.md).
const stackReplicas int32 = 1

// nobody is the user the stack's containers run as where the image does not bring its own.
const nobody int64 = 65534

// Verb sets used by the RBAC rules.
var read = []string{"get", "list", "watch"}

// Label keys and values Gardener's observability components carry (pkg/apis/core/v1beta1/constants
// in gardener/gardener v1.120.0).
const (
	labelApp       = "app"
	labelRole      = "role"
	labelComponent = "component"
	// labelGardenRole is gardener.cloud/role; its value monitoring or logging marks the shoot
	// control plane's observability workloads.
	labelGardenRole = "gardener.cloud/role"
	// labelObservabilityApp marks the pods of the components with a public endpoint.
	labelObservabilityApp = "observability.gardener.cloud/app"
	roleMonitoring        = "monitoring"
	roleLogging           = "logging"
	// annotationDeleteOnInvalidUpdate lets gardener-resource-manager re-create a binding whose
	// roleRef changed; the engine's plans replace such objects themselves.
	annotationDeleteOnInvalidUpdate = "resources.gardener.cloud/delete-on-invalid-update"
)

// meta is the metadata of one object; namespace is empty for cluster-scoped objects.
func meta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}

// merge returns a new map with the entries of all maps, later ones winning.
func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// resources is a container's resource requests; an empty quantity is left out.
func requests(cpu, memory string) corev1.ResourceRequirements {
	list := corev1.ResourceList{}
	if cpu != "" {
		list[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		list[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return corev1.ResourceRequirements{Requests: list}
}

// noPrivilegeEscalation is the container security context most of Gardener's observability
// containers carry: privilege escalation off, nothing else.
func noPrivilegeEscalation() *corev1.SecurityContext {
	return &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}
}

// serviceAccount is a ServiceAccount whose token is not mounted automatically: where the workload
// talks to the API server, gardener-resource-manager's projected-token-mount webhook mounts a
// short-lived token instead (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md).
func serviceAccount(name, namespace string, labels map[string]string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: meta(name, namespace, labels), AutomountServiceAccountToken: ptr.To(false)}
}

// clusterRoleBinding binds the ClusterRole role to the ServiceAccount subject of namespace.
func clusterRoleBinding(name string, labels map[string]string, role, subject, namespace string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: meta(name, "", labels),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: subject, Namespace: namespace}},
	}
}

// roleBinding binds the Role role to the ServiceAccount subject of its namespace.
func roleBinding(name, namespace string, labels map[string]string, role, subject string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: meta(name, namespace, labels),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: subject, Namespace: namespace}},
	}
}

// roleOf is a Role with rules.
func roleOf(name, namespace string, labels map[string]string, rules []rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: meta(name, namespace, labels), Rules: rules}
}
