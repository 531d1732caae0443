package observability

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

// PriorityClass is the class of every pod of the stack in the garden runtime cluster
// (Gardener's "Priority Classes" docs/development/priority-classes.md: fluent-operator, fluent-bit,
// gardener-metrics-exporter, kube-state-metrics, plutono, vali, prometheus-operator,
// alertmanager-garden, prometheus-garden, blackbox-exporter, prometheus-longterm).
const PriorityClass = priorityclasses.GardenSystem100

// stackReplicas is the replica count of every workload: observability components run one replica
// whatever the availability requirements (Gardener's "High Availability Of Components"
// docs/development/high-availability-of-components.md).
const stackReplicas int32 = 1

// nobody is the user the stack's containers run as where the image does not bring its own.
const nobody int64 = 65534

// Verb sets used by the RBAC rules.
var read = []string{"get", "list", "watch"}

// partOf marks every object as part of the stack.
const partOf = "app.kubernetes.io/part-of"

// meta is the metadata of one object; namespace is empty for cluster-scoped objects; app, when
// set, becomes the app label (Services carry it so that ServiceMonitors can select them).
func meta(name, namespace, app string) metav1.ObjectMeta {
	labels := map[string]string{partOf: "observability"}
	if app != "" {
		labels["app"] = app
	}
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}

// appLabels are the labels of a workload's pods, which its controller and Service select.
func appLabels(app string) map[string]string { return map[string]string{"app": app} }

// containerSecurity is kube.Unprivileged with the read-only root file system set either way:
// Plutono writes to its root file system.
func containerSecurity(readOnlyRoot bool) *corev1.SecurityContext {
	s := kube.Unprivileged()
	s.ReadOnlyRootFilesystem = ptr.To(readOnlyRoot)
	return s
}

// requests is a container's resource requests.
func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}}
}

// clusterRBAC renders a ServiceAccount and a ClusterRole bound to it, the role named in
// Gardener's gardener.cloud: scheme.
func clusterRBAC(name, namespace string, rules []rbacv1.PolicyRule) []runtime.Object {
	return append([]runtime.Object{&corev1.ServiceAccount{ObjectMeta: meta(name, namespace, "")}}, clusterRole(name, namespace, rules)...)
}

// clusterRole renders the ClusterRole gardener.cloud:observability:<name> and binds it to the
// ServiceAccount name in namespace.
func clusterRole(name, namespace string, rules []rbacv1.PolicyRule) []runtime.Object {
	role := "gardener.cloud:observability:" + name
	return []runtime.Object{
		&rbacv1.ClusterRole{ObjectMeta: meta(role, "", ""), Rules: rules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: meta(role, "", ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
		},
	}
}

// namespacedRBAC renders a ServiceAccount and a Role of its namespace bound to it: the
// permissions of a workload that looks at its own namespace only, as the workloads of a shoot
// control plane do, where cluster-wide objects named per shoot would pile up in the seed.
func namespacedRBAC(name, namespace string, rules []rbacv1.PolicyRule) []runtime.Object {
	return append([]runtime.Object{&corev1.ServiceAccount{ObjectMeta: meta(name, namespace, "")}}, role(name, namespace, name, rules)...)
}

// role renders a Role and binds it to the ServiceAccount serviceAccount of its namespace.
func role(name, namespace, serviceAccount string, rules []rbacv1.PolicyRule) []runtime.Object {
	return []runtime.Object{
		&rbacv1.Role{ObjectMeta: meta(name, namespace, ""), Rules: rules},
		&rbacv1.RoleBinding{
			ObjectMeta: meta(name, namespace, ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount, Namespace: namespace}},
		},
	}
}
