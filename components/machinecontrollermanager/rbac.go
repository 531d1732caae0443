package machinecontrollermanager

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ShootRBACName is the ManagedResource with the controller's permissions in the shoot, applied
// by the shoot's gardener-resource-manager (class unset, Gardener's "Conventions"
// docs/extensions/conventions.md).
const ShootRBACName = "shoot-core-" + Name

// seedRBAC lets the controller's ServiceAccount manage the machine objects of its namespace,
// the Secrets the MachineClasses refer to (Gardener's "Worker"
// docs/extensions/resources/worker.md), its leader-election Lease and events.
func seedRBAC(namespace string) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	meta := metav1.ObjectMeta{Name: Name, Namespace: namespace, Labels: SelectorLabels()}
	sa := &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)}
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	role := &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"*"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "get", "list", "update", "watch"}},
	}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: namespace}},
	}
	return sa, role, binding
}

// shootRBAC grants the controller's shoot ServiceAccount what draining and deleting nodes needs:
// Nodes, evicting Pods, and reading the volumes that block a drain.
func shootRBAC(cluster, namespace string) ([]render.Object, error) {
	name := "system:" + Name
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"delete", "get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"persistentvolumes", "persistentvolumeclaims", "replicationcontrollers", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "replicasets", "statefulsets"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"volumeattachments"}, Verbs: []string{"delete", "get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}},
	}
	us, err := kube.All(role, binding)
	if err != nil {
		return nil, err
	}
	return managedresource.Pack(managedresource.Spec{
		Cluster: cluster, Namespace: namespace, Name: ShootRBACName,
		// The shoot deletion's clean-up leaves objects with this label alone (Gardener's "Necessary
		// Labeling for Custom CSI Components" docs/usage/advanced/csi_components.md).
		InjectLabels: map[string]string{"shoot.gardener.cloud/no-cleanup": "true"},
		Objects:      us,
	})
}
