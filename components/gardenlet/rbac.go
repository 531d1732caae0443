package gardenlet

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// rbac is gardenlet's ServiceAccount, its ClusterRole with full admin rights in the seed
// (Gardener's "Deploy Gardenlet Manually" docs/deployment/deploy_gardenlet_manually.md: it deploys
// and deletes every seed system component and shoot control plane), and a Role for its
// leader-election Lease.
func rbac(ns string) []runtime.Object {
	labels := SelectorLabels()
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: ns}}
	all := []string{"*"}
	return objectsOf(
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: ns, Labels: labels}},
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName, Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: all, Resources: all, Verbs: all},
				{NonResourceURLs: all, Verbs: all},
			},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
			Subjects:   subjects,
		},
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName + ":leader-election", Namespace: ns, Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{LeaderElectionName}, Verbs: []string{"get", "watch", "update", "patch"}},
			},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName + ":leader-election", Namespace: ns, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ClusterRoleName + ":leader-election"},
			Subjects:   subjects,
		},
	)
}
