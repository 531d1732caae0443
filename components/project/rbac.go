package project

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The names of the project RBAC gardener-controller-manager's project controller keeps
// (pkg/component/garden/projectrbac/projectrbac.go at Gardener v1.120.0; Gardener's "Projects"
// docs/usage/project/projects.md): per role a project-specific ClusterRole and ClusterRoleBinding
// for the cluster-scoped resources (the Project and its Namespace), and RoleBindings in the
// project namespace to the central ClusterRoles for the namespaced ones.
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
	// labelRoleExtensionProjectRole is the gardener.cloud/role of an extension role's objects
	// (v1beta1constants.LabelExtensionProjectRole at v1.120.0).
	labelRoleExtensionProjectRole = "extension-project-role"
)

// rbacGroup is the API group of the RBAC kinds.
const rbacGroup = rbacv1.GroupName

// verbManageMembers is the custom verb behind the uam role (Gardener's
// docs/usage/project/projects.md).
const verbManageMembers = "manage-members"

// rbacObject is one RBAC object the project controller keeps, with the role it serves.
type rbacObject struct {
	role   string
	object any // *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding or *rbacv1.RoleBinding
}

// projectRBAC is the RBAC the project controller keeps for a Project as the landscape renders it
// (projectRBAC.Deploy in pkg/component/garden/projectrbac/projectrbac.go at v1.120.0), in its
// order: the owner's (admin) role, uam, the service account managers' RoleBinding, members,
// viewers, then one per extension role by name. Subjects come from spec.owner and spec.members in
// the order of spec.members, duplicates dropped; the owner member (role owner) is a member and a
// service account manager too. Objects without subjects have none (nil), as the controller
// writes them.
func projectRBAC(name, ns string, owner map[string]any, members []any) []rbacObject {
	var admins, uams, memberSubjects, viewers []rbacv1.Subject
	var saManagers []rbacv1.Subject
	extensions := map[string][]rbacv1.Subject{}
	if owner != nil {
		o := toSubject(owner)
		admins = []rbacv1.Subject{o}
		saManagers = []rbacv1.Subject{o}
	}
	for _, m := range members {
		entry, _ := m.(map[string]any)
		s := toSubject(entry)
		roles := []string{fmt.Sprint(entry["role"])}
		if more, ok := entry["roles"].([]any); ok {
			for _, r := range more {
				roles = append(roles, fmt.Sprint(r))
			}
		}
		for _, role := range roles {
			switch role {
			case RoleAdmin:
				memberSubjects = append(memberSubjects, s)
			case RoleOwner:
				memberSubjects = append(memberSubjects, s)
				saManagers = append(saManagers, s)
			case RoleUAM:
				uams = append(uams, s)
			case RoleServiceAccountManager:
				saManagers = append(saManagers, s)
			case RoleViewer:
				viewers = append(viewers, s)
			}
			if ext, ok := strings.CutPrefix(role, RoleExtensionPrefix); ok {
				extensions[ext] = append(extensions[ext], s)
			}
		}
	}
	namespaceGet := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{ns}, Verbs: []string{"get"}}
	projectVerbs := func(verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"projects"}, ResourceNames: []string{name}, Verbs: verbs}
	}
	var out []rbacObject
	clusterRoleWithBinding := func(role, crName string, subjects []rbacv1.Subject, rules ...rbacv1.PolicyRule) {
		out = append(out,
			rbacObject{role, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: crName}, Rules: rules}},
			rbacObject{role, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: crName}, RoleRef: clusterRoleRef(crName), Subjects: unique(subjects)}})
	}
	roleBinding := func(role, rbName string, labels map[string]string, subjects []rbacv1.Subject) {
		out = append(out, rbacObject{role, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: rbName, Namespace: ns, Labels: labels}, RoleRef: clusterRoleRef(rbName), Subjects: unique(subjects),
		}})
	}
	clusterRoleWithBinding(RoleOwner, rolePrefix+":"+name, admins, namespaceGet, projectVerbs("get", "patch", verbManageMembers, "update", "delete"))
	clusterRoleWithBinding(RoleUAM, rolePrefix+"-uam:"+name, uams, projectVerbs("get", verbManageMembers, "patch", "update"))
	roleBinding(RoleServiceAccountManager, CentralServiceAccountManagerRole, nil, saManagers)
	clusterRoleWithBinding(RoleAdmin, rolePrefix+"-member:"+name, memberSubjects, namespaceGet, projectVerbs("get", "patch", "update", "delete"))
	roleBinding(RoleAdmin, CentralMemberRole, nil, memberSubjects)
	clusterRoleWithBinding(RoleViewer, rolePrefix+"-viewer:"+name, viewers, namespaceGet, projectVerbs("get"))
	roleBinding(RoleViewer, CentralViewerRole, nil, viewers)
	for _, ext := range sortedKeys(extensions) {
		crName := extensionRolePrefix + name + ":" + ext
		labels := map[string]string{LabelRole: labelRoleExtensionProjectRole, LabelProjectName: name}
		// Gardener's docs/extensions/project-roles.md: the ClusterRole aggregates the extension's
		// ClusterRoles, and a RoleBinding of the same name binds the role's members in the project
		// namespace; no ClusterRoleBinding.
		out = append(out, rbacObject{RoleExtensionPrefix + ext, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: crName, Labels: labels},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{LabelAggregateToExtensionRole: ext}},
			}},
		}})
		roleBinding(RoleExtensionPrefix+ext, crName, labels, extensions[ext])
	}
	return out
}

func clusterRoleRef(name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: name}
}

// toSubject reads an rbac/v1 Subject as the Project spells it.
func toSubject(m map[string]any) rbacv1.Subject {
	str := func(k string) string { s, _ := m[k].(string); return s }
	return rbacv1.Subject{APIGroup: str("apiGroup"), Kind: str("kind"), Name: str("name"), Namespace: str("namespace")}
}

// unique drops repeated subjects, keeping the first (removeDuplicateSubjects in
// pkg/component/garden/projectrbac/projectrbac.go at v1.120.0); nil for none.
func unique(subjects []rbacv1.Subject) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, s := range subjects {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// subjectsText names subjects for a prediction: "User alice@example.com, Group ops".
func subjectsText(subjects []rbacv1.Subject) string {
	if len(subjects) == 0 {
		return "no subjects"
	}
	names := make([]string, len(subjects))
	for i, s := range subjects {
		names[i] = s.Kind + " " + s.Name
		if s.Namespace != "" {
			names[i] = s.Kind + " " + s.Namespace + "/" + s.Name
		}
	}
	return strings.Join(names, ", ")
}
