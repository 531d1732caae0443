package kube

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// ServiceAccountRBAC is the identity of a workload that talks to the API server, with its
// permissions: the ServiceAccount meta names (its token mounted), the ClusterRole clusterRole with
// clusterRules and a Role of the ServiceAccount's name with namespaceRules in its namespace, each
// bound to the ServiceAccount. Every object carries meta's labels.
func ServiceAccountRBAC(meta metav1.ObjectMeta, clusterRole string, clusterRules, namespaceRules []rbacv1.PolicyRule) []runtime.Object {
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: meta.Namespace, Name: meta.Name}}
	clusterMeta := metav1.ObjectMeta{Name: clusterRole, Labels: meta.Labels}
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)},
		&rbacv1.ClusterRole{ObjectMeta: clusterMeta, Rules: clusterRules},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: clusterMeta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects:   subjects,
		},
		&rbacv1.Role{ObjectMeta: meta, Rules: namespaceRules},
		&rbacv1.RoleBinding{
			ObjectMeta: meta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: meta.Name},
			Subjects:   subjects,
		},
	}
}
