package gardenlet

import (
	_ "embed"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// clusterRolesYAML are gardenlet's ClusterRoles in the seed with their rules
// (charts/gardener/gardenlet/templates/clusterrole-*.yaml in gardener/gardener v1.120.0).
//
//go:embed clusterroles.yaml
var clusterRolesYAML []byte

// clusterRoles parses clusterRolesYAML.
func clusterRoles() ([]rbacv1.ClusterRole, error) {
	var entries []struct {
		Name  string              `json:"name"`
		Rules []rbacv1.PolicyRule `json:"rules"`
	}
	if err := yaml.UnmarshalStrict(clusterRolesYAML, &entries); err != nil {
		return nil, fmt.Errorf("gardenlet cluster roles: %w", err)
	}
	out := make([]rbacv1.ClusterRole, len(entries))
	for i, e := range entries {
		out[i] = rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: e.Name}, Rules: e.Rules}
	}
	return out, nil
}

// rbac is gardenlet's ServiceAccount (its token mounted by the Deployment's own projected volume),
// its ClusterRoles gardener.cloud:system:gardenlet, ...:apiserver-sni and ...:managed-istio with
// their bindings, and the Role of its namespace that lets it create DaemonSets there
// (serviceaccount.yaml, clusterrole*.yaml, clusterrolebinding*.yaml, role-garden-gardenlet.yaml and
// rolebinding-garden-gardenlet.yaml of the chart).
func rbac(ns string) ([]runtime.Object, error) {
	roles, err := clusterRoles()
	if err != nil {
		return nil, err
	}
	labels := chartLabels()
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: ns}}
	out := []runtime.Object{&corev1.ServiceAccount{ObjectMeta: meta(Name, ns, labels), AutomountServiceAccountToken: ptr.To(false)}}
	for i := range roles {
		role := roles[i]
		role.Labels = labels
		out = append(out, &role, &rbacv1.ClusterRoleBinding{
			ObjectMeta: meta(role.Name, "", labels),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   subjects,
		})
	}
	return append(out,
		&rbacv1.Role{
			ObjectMeta: meta(ClusterRoleName, ns, labels),
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: []string{"create"}}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta(ClusterRoleName, ns, labels),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ClusterRoleName},
			Subjects:   subjects,
		},
	), nil
}

// meta is an object's metadata.
func meta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}
