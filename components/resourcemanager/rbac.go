package resourcemanager

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// appLabel selects the GRM's pods; the Service selects app=gardener-resource-manager (Gardener's
// "Gardener Resource Manager" docs/concepts/resource-manager.md).
func appLabel() map[string]string {
	return map[string]string{"app": Name}
}

// labels are the labels of the GRM's objects: the app label, and for a shoot's GRM the
// control-plane role (getLabels in pkg/component/gardener/resourcemanager/resource_manager.go at
// gardener/gardener v1.120.0).
func labels(v Values) map[string]string {
	l := appLabel()
	if v.Shoot != nil {
		l["gardener.cloud/role"] = "controlplane"
	}
	return l
}

// serviceAccount is the GRM's ServiceAccount. Its token is not automounted: the pod mounts a
// projected token of its own (kube-api-access-gardener, workload.go), as Gardener's does
// (ensureServiceAccount in resource_manager.go at v1.120.0).
func serviceAccount(v Values) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels(v)},
		AutomountServiceAccountToken: ptr.To(false),
	}
}

// rbac renders the ServiceAccount and its permissions.
//
// The GRM applies whatever objects ManagedResources hold, RBAC objects included, and the API
// server lets it grant only permissions it holds itself; so, as in Gardener, it gets every
// permission in the cluster it manages. The namespaced Role for leader election and events keeps
// the lease working on its own should the cluster-wide rights ever be narrowed. A shoot's GRM
// gets namespaced rights only (shootRBAC).
func rbac(v Values) []runtime.Object {
	if v.Shoot != nil {
		return shootRBAC(v)
	}
	meta := metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels(v)}
	clusterMeta := metav1.ObjectMeta{Name: "gardener.cloud:system:" + Name, Labels: labels(v)}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: v.Namespace}}
	return []runtime.Object{
		serviceAccount(v),
		&rbacv1.ClusterRole{
			ObjectMeta: clusterMeta,
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
				{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: clusterMeta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterMeta.Name},
			Subjects:   subject,
		},
		&rbacv1.Role{
			ObjectMeta: meta,
			Rules:      leaderElectionRules(),
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
			Subjects:   subject,
		},
	}
}

// leaderElectionRules let the resource manager keep its leader election Lease and record
// Events in its namespace.
func leaderElectionRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{Name}, Verbs: []string{"get", "watch", "update"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
}
