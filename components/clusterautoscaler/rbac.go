package clusterautoscaler

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ShootRBACName is the ManagedResource with the autoscaler's permissions in the shoot, applied by
// the shoot's gardener-resource-manager (class unset, Gardener's "Conventions"
// docs/extensions/conventions.md).
const ShootRBACName = "shoot-core-" + Name

var read = []string{"get", "list", "watch"}

// seedRBAC lets the autoscaler read the machine objects of its namespace and change the
// replicas of MachineDeployments (Gardener's "Worker" docs/extensions/resources/worker.md) and the
// machines it picks for removal.
func seedRBAC(namespace string) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	meta := metav1.ObjectMeta{Name: Name, Namespace: namespace, Labels: SelectorLabels()}
	sa := &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)}
	role := &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machineclasses", "machinesets"}, Verbs: read},
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machinedeployments", "machines"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
	}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: namespace}},
	}
	return sa, role, binding
}

// shootRBAC grants the autoscaler's shoot ServiceAccount what simulating scheduling and draining
// nodes needs, plus its leader-election Lease and status ConfigMap in kube-system. These are the
// upstream autoscaler's needs; Gardener's documentation lists none.
func shootRBAC(cluster, namespace string) ([]render.Object, error) {
	name := "system:" + Name
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"delete", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces", "pods", "services", "replicationcontrollers", "persistentvolumeclaims", "persistentvolumes", "configmaps"}, Verbs: read},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "replicasets", "statefulsets"}, Verbs: read},
		{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: read},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: read},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"}, Verbs: read},
	}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}},
	}
	sysMeta := metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}
	sysRole := &rbacv1.Role{ObjectMeta: sysMeta, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "get", "list", "patch", "update", "watch"}},
	}}
	sysBinding := &rbacv1.RoleBinding{
		ObjectMeta: sysMeta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}},
	}
	us, err := kube.All(role, binding, sysRole, sysBinding)
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
