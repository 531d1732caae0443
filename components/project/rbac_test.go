package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The Project controller's RBAC by role (Gardener's "Projects" docs/usage/project/projects.md): the
// owner combines admin, uam and serviceaccountmanager (Gardener's docs/usage/project/projects.md);
// extension roles aggregate labelled ClusterRoles and bind their members in the namespace
// (Gardener's "Project Roles" docs/extensions/project-roles.md).
func TestRBACByRole(t *testing.T) {
	objs := rbac("dev", "garden-dev", *owner("owner@example.com"), []Member{
		member(Member{Name: "alice@example.com", Role: RoleAdmin, Roles: []string{RoleUAM, "extension:foo"}}),
		member(Member{Kind: KindGroup, Name: "viewers", Role: RoleViewer}),
		member(Member{Kind: KindServiceAccount, Name: "robot", Namespace: "garden-dev", Role: RoleServiceAccountManager}),
	})
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = o
	}
	names := func(u *unstructured.Unstructured) []string {
		require.NotNil(t, u)
		list, _, _ := unstructured.NestedSlice(u.Object, "subjects")
		var out []string
		for _, s := range list {
			out = append(out, s.(map[string]any)["kind"].(string)+":"+s.(map[string]any)["name"].(string))
		}
		return out
	}
	for name, want := range map[string][]string{
		"ClusterRoleBinding /gardener.cloud:system:project-member:dev":               {"User:owner@example.com", "User:alice@example.com"},
		"ClusterRoleBinding /gardener.cloud:system:project-uam:dev":                  {"User:owner@example.com", "User:alice@example.com"},
		"ClusterRoleBinding /gardener.cloud:system:project-viewer:dev":               {"Group:viewers"},
		"ClusterRoleBinding /gardener.cloud:system:project:dev":                      {"User:owner@example.com"},
		"RoleBinding garden-dev/gardener.cloud:system:project-member":                {"User:owner@example.com", "User:alice@example.com"},
		"RoleBinding garden-dev/gardener.cloud:system:project-viewer":                {"Group:viewers"},
		"RoleBinding garden-dev/gardener.cloud:system:project-serviceaccountmanager": {"User:owner@example.com", "ServiceAccount:robot"},
		"RoleBinding garden-dev/gardener.cloud:extension:project:dev:foo":            {"User:alice@example.com"},
	} {
		assert.Equal(t, want, names(byName[name]), name)
	}
	for _, cr := range []string{"gardener.cloud:system:project-member:dev", "gardener.cloud:system:project-uam:dev", "gardener.cloud:system:project-viewer:dev", "gardener.cloud:system:project:dev"} {
		u := byName["ClusterRole /"+cr]
		require.NotNil(t, u, cr)
		rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
		require.NotEmpty(t, rules, cr)
		assert.Equal(t, []any{"dev"}, rules[0].(map[string]any)["resourceNames"], "%s grants access to its own project only", cr)
	}
	uam, _, _ := unstructured.NestedSlice(byName["ClusterRole /gardener.cloud:system:project-uam:dev"].Object, "rules")
	assert.Contains(t, uam[0].(map[string]any)["verbs"], "manage-members", "Gardener's docs/usage/project/projects.md")
	ext := byName["ClusterRole /gardener.cloud:extension:project:dev:foo"]
	require.NotNil(t, ext)
	selectors, _, _ := unstructured.NestedSlice(ext.Object, "aggregationRule", "clusterRoleSelectors")
	assert.Equal(t, []any{map[string]any{"matchLabels": map[string]any{"rbac.gardener.cloud/aggregate-to-extension-role": "foo"}}}, selectors)
	_, hasRules := ext.Object["rules"]
	assert.False(t, hasRules, "the aggregation controller fills the rules in")

	// A project without viewers still has the viewer objects, without subjects.
	objs = rbac("dev", "garden-dev", *owner("owner@example.com"), nil)
	for _, o := range objs {
		if o.GetName() == "gardener.cloud:system:project-viewer" {
			_, has := o.Object["subjects"]
			assert.False(t, has)
		}
	}
}
