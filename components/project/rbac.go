package project

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The RBAC objects the Project controller maintains for a project's members (Gardener's "Gardener
// Controller Manager" docs/concepts/controller-manager.md, "Projects"
// docs/usage/project/projects.md): per role a project-specific ClusterRole and ClusterRoleBinding
// for the cluster-scoped resources (the Project and its Namespace), and RoleBindings in the project
// namespace to the central ClusterRoles for the namespaced ones.
const (
	rolePrefix = "gardener.cloud:system:project"
	// CentralMemberRole, CentralViewerRole and CentralServiceAccountManagerRole are the central
	// ClusterRoles the project namespace's RoleBindings refer to (Gardener's
	// docs/usage/project/projects.md); the Gardener control plane provides them.
	CentralMemberRole                = rolePrefix + "-member"
	CentralViewerRole                = rolePrefix + "-viewer"
	CentralServiceAccountManagerRole = rolePrefix + "-serviceaccountmanager"
	// extensionRolePrefix names the ClusterRole and RoleBinding of an extension role:
	// gardener.cloud:extension:project:<project>:<role> (Gardener's "Project Roles"
	// docs/extensions/project-roles.md).
	extensionRolePrefix = "gardener.cloud:extension:project:"
	// LabelAggregateToExtensionRole marks ClusterRoles an extension role aggregates (Gardener's
	// docs/extensions/project-roles.md).
	LabelAggregateToExtensionRole = "rbac.gardener.cloud/aggregate-to-extension-role"
)

// verbManageMembers is the custom verb behind the uam role (Gardener's
// docs/usage/project/projects.md).
const verbManageMembers = "manage-members"

// projectRule grants verbs on the project itself; namespaceRule read access to its namespace.
// Gardener's documentation names the resources of the project-specific roles ("cluster-scoped
// resources, e.g., the Namespace or Project itself", Gardener's docs/usage/project/projects.md) but
// not their verbs: these follow the roles' descriptions (Gardener's
// docs/usage/project/projects.md): admins manage the project, viewers read it, uam manages its
// members, the owner does all of it.
func projectRule(name string, verbs ...string) map[string]any {
	return map[string]any{"apiGroups": []any{"core.gardener.cloud"}, "resources": []any{"projects"}, "resourceNames": []any{name}, "verbs": kube.AnyList(verbs)}
}

func namespaceRule(ns string) map[string]any {
	return map[string]any{"apiGroups": []any{""}, "resources": []any{"namespaces"}, "resourceNames": []any{ns}, "verbs": []any{"get"}}
}

// roleSubjects are the project's subjects by role, the owner's combined roles (admin, uam and
// serviceaccountmanager, Gardener's docs/usage/project/projects.md) spelled out, in the order of
// spec.members.
func roleSubjects(owner Subject, ms []Member) map[string][]Subject {
	out := map[string][]Subject{}
	add := func(role string, s Subject) {
		if !slices.Contains(out[role], s) {
			out[role] = append(out[role], s)
		}
	}
	o, _ := normalise(owner) // members validated it
	for _, r := range []string{RoleOwner, RoleAdmin, RoleUAM, RoleServiceAccountManager} {
		add(r, o)
	}
	for _, m := range ms {
		s, _ := normalise(Subject{Kind: m.Kind, Name: m.Name, Namespace: m.Namespace})
		for _, r := range append([]string{m.Role}, m.Roles...) {
			add(r, s)
		}
	}
	return out
}

// rbac renders the ClusterRoles, ClusterRoleBindings and RoleBindings of the project's roles.
// Every project gets those of the built-in roles, with or without subjects, as the controller
// keeps them; extension roles get theirs while a member has them.
func rbac(name, ns string, owner Subject, ms []Member) []*unstructured.Unstructured {
	subjects := roleSubjects(owner, ms)
	var objs []*unstructured.Unstructured
	clusterRole := func(role, crName string, rules ...map[string]any) {
		list := make([]any, len(rules))
		for i, r := range rules {
			list[i] = r
		}
		objs = append(objs,
			kube.Custom("rbac.authorization.k8s.io/v1", "ClusterRole", "", crName, nil, map[string]any{"rules": list}),
			binding("ClusterRoleBinding", "", crName, crName, subjects[role]))
	}
	clusterRole(RoleAdmin, rolePrefix+"-member:"+name, projectRule(name, "get", "patch", "update", "delete"), namespaceRule(ns))
	clusterRole(RoleUAM, rolePrefix+"-uam:"+name, projectRule(name, "get", verbManageMembers))
	clusterRole(RoleViewer, rolePrefix+"-viewer:"+name, projectRule(name, "get"), namespaceRule(ns))
	clusterRole(RoleOwner, rolePrefix+":"+name, projectRule(name, "get", "patch", "update", "delete", verbManageMembers), namespaceRule(ns))
	objs = append(objs,
		binding("RoleBinding", ns, CentralMemberRole, CentralMemberRole, subjects[RoleAdmin]),
		binding("RoleBinding", ns, CentralViewerRole, CentralViewerRole, subjects[RoleViewer]),
		binding("RoleBinding", ns, CentralServiceAccountManagerRole, CentralServiceAccountManagerRole, subjects[RoleServiceAccountManager]))

	var extensionRoles []string
	for role := range subjects {
		if strings.HasPrefix(role, RoleExtensionPrefix) {
			extensionRoles = append(extensionRoles, role)
		}
	}
	slices.Sort(extensionRoles)
	for _, role := range extensionRoles {
		short := strings.TrimPrefix(role, RoleExtensionPrefix)
		crName := extensionRolePrefix + name + ":" + short
		// Gardener's docs/extensions/project-roles.md: the ClusterRole aggregates the extension's
		// ClusterRoles, and a RoleBinding of the same name binds the role's members in the project
		// namespace.
		objs = append(objs,
			kube.Custom("rbac.authorization.k8s.io/v1", "ClusterRole", "", crName, nil, map[string]any{
				"aggregationRule": map[string]any{"clusterRoleSelectors": []any{
					map[string]any{"matchLabels": map[string]any{LabelAggregateToExtensionRole: short}},
				}},
			}),
			binding("RoleBinding", ns, crName, crName, subjects[role]))
	}
	return objs
}

// binding renders a ClusterRoleBinding (namespace "") or RoleBinding to the ClusterRole role.
func binding(kind, namespace, name, role string, subjects []Subject) *unstructured.Unstructured {
	fields := map[string]any{"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}}
	if len(subjects) > 0 { // the API server stores no empty list
		list := make([]any, 0, len(subjects))
		for _, s := range subjects {
			list = append(list, subject(s))
		}
		fields["subjects"] = list
	}
	return kube.Custom("rbac.authorization.k8s.io/v1", kind, namespace, name, nil, fields)
}
