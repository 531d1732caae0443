package dependencywatchdog

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// clusterRules are what an instance does in the shoot namespaces of the seed. Gardener's
// documentation describes the behaviour ("Seed Bootstrapping"
// docs/operations/seed_bootstrapping.md), not the permissions; these are the least that behaviour
// needs.
func clusterRules(r Role) []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	events := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}
	if r == Prober {
		return []rbacv1.PolicyRule{
			// Cluster resources name the shoots and tell whether they are hibernated.
			{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"clusters"}, Verbs: read},
			// The kubeconfigs the probes use live in the shoot namespaces.
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: read},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: append(read, "patch", "update")},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"get", "patch", "update"}},
			{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: read},
			events,
		}
	}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "endpoints"}, Verbs: read},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
		// Restarting a crash-looping pod means deleting it.
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: append(read, "delete")},
		events,
	}
}

// rbac is an instance's ServiceAccount, its ClusterRole and binding for the shoot namespaces,
// and a Role and binding for its leader-election Lease in its own namespace.
func rbac(r Role, ns string) []runtime.Object {
	name := Name(r)
	clusterRole := "gardener.cloud:" + name
	labels := selectorLabels(r)
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}}
	return []runtime.Object{
		// The pods use the ServiceAccount's token for the seed's API server.
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRole, Labels: labels}, Rules: clusterRules(r)},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: clusterRole, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects:   subject,
		},
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: clusterRole, Namespace: ns, Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{name}, Verbs: []string{"get", "watch", "update", "patch"}},
			},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: clusterRole, Namespace: ns, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: clusterRole},
			Subjects:   subject,
		},
	}
}
