package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The project RBAC gardener-controller-manager's project controller keeps, by role
// (projectRBAC.Deploy in pkg/component/garden/projectrbac/projectrbac.go at Gardener v1.120.0):
// spec.owner alone holds the owner's role; the owner member (role owner) is a member and a service
// account manager; uam, viewers and extension roles bind their members; subjects in the order of
// spec.members without repetitions.
func TestProjectRBACByRole(t *testing.T) {
	project := projectOf(t, values(Values{Cluster: cluster, Name: "dev", Owner: owner("owner@example.com"), Members: []Member{
		member(Member{Name: "alice@example.com", Role: RoleAdmin, Roles: []string{RoleUAM, "extension:foo"}}),
		member(Member{Kind: KindGroup, Name: "viewers", Role: RoleViewer}),
		member(Member{Kind: KindServiceAccount, Name: "robot", Namespace: "garden-dev", Role: RoleServiceAccountManager}),
	}}))
	spec := project.Object["spec"].(map[string]any)
	objs := projectRBAC("dev", "garden-dev", spec["owner"].(map[string]any), spec["members"].([]any))

	type entry struct{ role, subjects string }
	got := map[string]entry{}
	var order []string
	for _, o := range objs {
		meta, kind, _ := rbacMeta(o.object)
		key := kind + " " + meta.Namespace + "/" + meta.Name
		order = append(order, key)
		switch b := o.object.(type) {
		case *rbacv1.ClusterRoleBinding:
			got[key] = entry{o.role, subjectsText(b.Subjects)}
		case *rbacv1.RoleBinding:
			got[key] = entry{o.role, subjectsText(b.Subjects)}
			assert.Equal(t, b.Name, b.RoleRef.Name, "a RoleBinding refers to the ClusterRole of its name")
		default:
			got[key] = entry{o.role, ""}
		}
	}
	assert.Equal(t, map[string]entry{
		"ClusterRole /gardener.cloud:system:project:dev":                             {"owner", ""},
		"ClusterRoleBinding /gardener.cloud:system:project:dev":                      {"owner", "User owner@example.com"},
		"ClusterRole /gardener.cloud:system:project-uam:dev":                         {"uam", ""},
		"ClusterRoleBinding /gardener.cloud:system:project-uam:dev":                  {"uam", "User alice@example.com"},
		"RoleBinding garden-dev/gardener.cloud:system:project-serviceaccountmanager": {"serviceaccountmanager", "User owner@example.com, ServiceAccount garden-dev/robot"},
		"ClusterRole /gardener.cloud:system:project-member:dev":                      {"admin", ""},
		"ClusterRoleBinding /gardener.cloud:system:project-member:dev":               {"admin", "User owner@example.com, User alice@example.com"},
		"RoleBinding garden-dev/gardener.cloud:system:project-member":                {"admin", "User owner@example.com, User alice@example.com"},
		"ClusterRole /gardener.cloud:system:project-viewer:dev":                      {"viewer", ""},
		"ClusterRoleBinding /gardener.cloud:system:project-viewer:dev":               {"viewer", "Group viewers"},
		"RoleBinding garden-dev/gardener.cloud:system:project-viewer":                {"viewer", "Group viewers"},
		"ClusterRole /gardener.cloud:extension:project:dev:foo":                      {"extension:foo", ""},
		"RoleBinding garden-dev/gardener.cloud:extension:project:dev:foo":            {"extension:foo", "User alice@example.com"},
	}, got)
	assert.Len(t, order, 13, "no ClusterRoleBinding for an extension role")

	rules := func(name string) []rbacv1.PolicyRule {
		for _, o := range objs {
			if cr, ok := o.object.(*rbacv1.ClusterRole); ok && cr.Name == name {
				return cr.Rules
			}
		}
		t.Fatalf("no ClusterRole %s", name)
		return nil
	}
	namespaceGet := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{"garden-dev"}, Verbs: []string{"get"}}
	projects := func(verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"projects"}, ResourceNames: []string{"dev"}, Verbs: verbs}
	}
	// The rules in the controller's order: rules are an atomic list, so another order is a change.
	assert.Equal(t, []rbacv1.PolicyRule{namespaceGet, projects("get", "patch", "manage-members", "update", "delete")}, rules("gardener.cloud:system:project:dev"))
	assert.Equal(t, []rbacv1.PolicyRule{projects("get", "manage-members", "patch", "update")}, rules("gardener.cloud:system:project-uam:dev"))
	assert.Equal(t, []rbacv1.PolicyRule{namespaceGet, projects("get", "patch", "update", "delete")}, rules("gardener.cloud:system:project-member:dev"))
	assert.Equal(t, []rbacv1.PolicyRule{namespaceGet, projects("get")}, rules("gardener.cloud:system:project-viewer:dev"))
	for _, o := range objs {
		if cr, ok := o.object.(*rbacv1.ClusterRole); ok && cr.Name == "gardener.cloud:extension:project:dev:foo" {
			require.NotNil(t, cr.AggregationRule)
			assert.Equal(t, map[string]string{"rbac.gardener.cloud/aggregate-to-extension-role": "foo"}, cr.AggregationRule.ClusterRoleSelectors[0].MatchLabels)
			assert.Equal(t, map[string]string{"gardener.cloud/role": "extension-project-role", "project.gardener.cloud/name": "dev"}, cr.Labels)
			assert.Empty(t, cr.Rules, "the aggregation controller fills the rules in")
		}
	}

	// Without viewers the viewer objects exist without subjects.
	objs = projectRBAC("dev", "garden-dev", spec["owner"].(map[string]any), nil)
	for _, o := range objs {
		if b, ok := o.object.(*rbacv1.RoleBinding); ok && b.Name == CentralViewerRole {
			assert.Nil(t, b.Subjects)
		}
	}
}
