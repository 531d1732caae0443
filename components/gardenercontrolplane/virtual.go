package gardenercontrolplane

import (
	"encoding/base64"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterRoleName is the virtual garden ClusterRole (and ClusterRoleBinding) of a component, in
// Gardener's gardener.cloud:system:<name> naming of system roles (Gardener's "Projects"
// docs/usage/project/projects.md for the project roles of the same scheme).
func ClusterRoleName(component string) string {
	return "gardener.cloud:system:" + Role(component)
}

// ClusterRole grants the component's ServiceAccount in the virtual garden the given rules and
// binds them to it.
func (r Resolved) ClusterRole(rules []rbacv1.PolicyRule) (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	name := ClusterRoleName(r.Component)
	labels := Labels(Role(r.Component))
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{r.Subject()},
	}
	return role, binding
}

// Subject is the component's ServiceAccount in the virtual garden as an RBAC subject.
func (r Resolved) Subject() rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: r.Component, Namespace: VirtualSystemNamespace}
}

// LeaderElectionRules let a component hold its leader election Lease in the virtual garden.
// Leases are granted cluster-wide because create cannot be narrowed to a name and a Role would
// need the garden namespace to exist before the component is applied.
func LeaderElectionRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{
		APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
		Verbs: []string{"create", "get", "list", "watch", "update"},
	}}
}

// CABundle turns a CA bundle into the base64 text of a caBundle field: PEM is encoded; anything
// else (base64 text already, or an engine marker for a generated certificate that resolves to
// base64) is used as it is.
func CABundle(bundle string) string {
	if strings.HasPrefix(strings.TrimSpace(bundle), "-----BEGIN") {
		return base64.StdEncoding.EncodeToString([]byte(bundle))
	}
	return bundle
}
