package etcddruid

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// ClusterRoleName names the ClusterRole and ClusterRoleBinding.
const ClusterRoleName = "gardener.cloud:system:etcd-druid"

var (
	all       = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	readWrite = []string{"get", "list", "patch", "update", "watch"}
)

// clusterRules are gardenlet's rules for etcd-druid, in its order: druid deletes stuck pods,
// reads and finalizes backup Secrets, writes events, creates each cluster's ServiceAccount, Role
// and RoleBinding, Services, ConfigMaps, StatefulSet, compaction Jobs, member Leases and
// PodDisruptionBudget, and reconciles Etcds and EtcdCopyBackupsTasks with their status.
var clusterRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "delete", "deletecollection"}},
	{APIGroups: []string{""}, Resources: []string{"secrets", "endpoints"}, Verbs: readWrite},
	{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "get", "list", "watch", "patch", "update"}},
	{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: all},
	{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: all},
	{APIGroups: []string{""}, Resources: []string{"services", "configmaps"}, Verbs: []string{"get", "list", "patch", "update", "watch", "create", "delete"}},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: []string{"get", "list", "patch", "update", "watch", "create", "delete"}},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: all},
	{APIGroups: []string{"druid.gardener.cloud"}, Resources: []string{"etcds", "etcdcopybackupstasks"}, Verbs: all},
	{APIGroups: []string{"druid.gardener.cloud"}, Resources: []string{"etcds/status", "etcds/finalizers", "etcdcopybackupstasks/status", "etcdcopybackupstasks/finalizers"}, Verbs: []string{"get", "update", "patch", "create"}},
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}},
	{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: all},
}

// rbac renders the ServiceAccount (without an automounted token: gardener-resource-manager's
// projected-token-mount webhook mounts one) and the ClusterRole with its binding. The leader
// lease is covered by the ClusterRole.
func rbac(namespace string) []runtime.Object {
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta(Name, namespace), AutomountServiceAccountToken: ptr.To(false)},
		&rbacv1.ClusterRole{ObjectMeta: meta(ClusterRoleName, ""), Rules: clusterRules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: meta(ClusterRoleName, ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: namespace}},
		},
	}
}

// labels are the labels of every object and the pods' selector labels.
func labels() map[string]string { return map[string]string{"gardener.cloud/role": Name} }

// meta is an object's metadata; namespace is empty for cluster-scoped objects.
func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels()}
}
