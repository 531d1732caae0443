package etcddruid

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ClusterRoleName names the ClusterRole and ClusterRoleBinding, in Gardener's naming scheme.
const ClusterRoleName = "gardener.cloud:system:etcd-druid"

// LeaderElectionID is the Lease the replicas elect their leader with (etcd-druid's default).
const LeaderElectionID = "druid-leader-election"

var (
	all  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	read = []string{"get", "list", "watch"}
)

// clusterRules are what etcd-druid needs for the Etcds of every namespace: it reads and updates
// Etcds and their status, creates each cluster's StatefulSet, Services, ConfigMap,
// PersistentVolumeClaims, PodDisruptionBudget, member Leases, ServiceAccount, Role and RoleBinding
// and its backup compaction Jobs, reads the backup Secrets (and sets finalizers on them), and
// deletes stuck pods.
var clusterRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"druid.gardener.cloud"}, Resources: []string{"etcds", "etcdcopybackupstasks"}, Verbs: all},
	{APIGroups: []string{"druid.gardener.cloud"}, Resources: []string{"etcds/status", "etcds/finalizers", "etcdcopybackupstasks/status", "etcdcopybackupstasks/finalizers"}, Verbs: []string{"get", "update", "patch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: all},
	{APIGroups: []string{""}, Resources: []string{"services", "configmaps", "persistentvolumeclaims", "serviceaccounts"}, Verbs: all},
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "delete", "deletecollection"}},
	{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: read},
	{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "get", "list", "watch", "patch", "update"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: all},
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: all},
	{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: all},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: all},
}

// rbac renders the ServiceAccount, the ClusterRole and its binding, and the leader-election Role
// in the namespace (kept separate so that leader election keeps working should the ClusterRole
// ever be narrowed).
func rbac(namespace string) []runtime.Object {
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: namespace}}
	leaderElection := Name + "-leader-election"
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta(Name, namespace)},
		&rbacv1.ClusterRole{ObjectMeta: meta(ClusterRoleName, ""), Rules: clusterRules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: meta(ClusterRoleName, ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
			Subjects:   subjects,
		},
		&rbacv1.Role{
			ObjectMeta: meta(leaderElection, namespace),
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta(leaderElection, namespace),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: leaderElection},
			Subjects:   subjects,
		},
	}
}

// labels are the labels of every object and the pods' selector labels.
func labels() map[string]string { return map[string]string{"gardener.cloud/role": Name} }

// meta is an object's metadata; namespace is empty for cluster-scoped objects.
func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels()}
}
