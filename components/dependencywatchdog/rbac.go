package dependencywatchdog

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// leaseName is the leader-election Lease of an instance, dependency-watchdog's own default name.
func leaseName(r Role) string { return "dwd-" + string(r) + "-leader-election" }

var read = []string{"get", "list", "watch"}

// clusterRules are an instance's permissions in every namespace: the prober reads Clusters,
// namespaces, the probe kubeconfig Secrets and Machines and scales Deployments; the weeder reads
// Endpoints and deletes crash-looping pods.
func clusterRules(r Role) []rbacv1.PolicyRule {
	if r == Prober {
		return []rbacv1.PolicyRule{
			{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"clusters"}, Verbs: read},
			{APIGroups: []string{""}, Resources: []string{"namespaces", "secrets"}, Verbs: read},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments", "deployments/scale"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
			{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machines"}, Verbs: read},
		}
	}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "delete"}},
	}
}

// namespaceRules are an instance's permissions in its own namespace: its leader-election Lease
// and events.
func namespaceRules(r Role) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, ResourceNames: []string{leaseName(r)}, Resources: []string{"leases"}, Verbs: []string{"get", "watch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "get", "update", "patch"}},
	}
}

// rbac is an instance's ServiceAccount (without an automounted token: gardener-resource-manager's
// projected-token-mount webhook mounts one), its ClusterRole and Role gardener.cloud:<name> and
// their bindings. Like gardenlet's, the RBAC objects carry no labels.
func rbac(r Role, ns string) []runtime.Object {
	name := Name(r)
	rbacName := "gardener.cloud:" + name
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}}
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, AutomountServiceAccountToken: ptr.To(false)},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: rbacName}, Rules: clusterRules(r)},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: rbacName},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: rbacName},
			Subjects:   subject,
		},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: rbacName, Namespace: ns}, Rules: namespaceRules(r)},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: rbacName, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: rbacName},
			Subjects:   subject,
		},
	}
}
