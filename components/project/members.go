package project

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The kinds of subject a project member can be (rbac/v1 Subject, Gardener's ProjectMember in
// docs/api-reference/core.md).
const (
	KindUser           = "User"
	KindGroup          = "Group"
	KindServiceAccount = "ServiceAccount"
)

// rbacAPIGroup is the API group of User and Group subjects, as in Gardener's documented example
// (Gardener's "NamespacedCloudProfiles" docs/usage/project/namespaced-cloud-profiles.md);
// ServiceAccount subjects have the empty group, as everywhere in rbac/v1.
const rbacAPIGroup = "rbac.authorization.k8s.io"

// The project roles (Gardener's "Projects" docs/usage/project/projects.md).
const (
	RoleAdmin                 = "admin"
	RoleServiceAccountManager = "serviceaccountmanager"
	RoleUAM                   = "uam"
	RoleViewer                = "viewer"
	RoleOwner                 = "owner"
	// RoleExtensionPrefix starts extension roles such as extension:foo (Gardener's
	// docs/usage/project/projects.md, "Project Roles" docs/extensions/project-roles.md).
	RoleExtensionPrefix = "extension:"
)

// maxExtensionRoleLength bounds the name of an extension role after its prefix (Gardener's
// docs/extensions/project-roles.md).
const maxExtensionRoleLength = 20

// Subject is a user, group or service account (rbac/v1 Subject).
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind"`
	// Name is the user's or group's name (often an e-mail address) or the service account's.
	Name string `json:"name"`
	// Namespace is a service account's namespace; only ServiceAccount subjects have one.
	Namespace string `json:"namespace"`
}

// Member is a subject with roles in the project (ProjectMember, Gardener's ProjectMember in
// docs/api-reference/core.md).
type Member struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Role is the member's main role: admin, viewer, uam, serviceaccountmanager or extension:<name>.
	// The owner role belongs to the Owner only.
	Role string `json:"role"`
	// Roles are further roles of the member.
	Roles []string `json:"roles"`
}

// ValidRole reports why role is not a project role, or "" when it is.
func ValidRole(role string) string {
	switch role {
	case RoleAdmin, RoleServiceAccountManager, RoleUAM, RoleViewer, RoleOwner:
		return ""
	}
	name, ok := strings.CutPrefix(role, RoleExtensionPrefix)
	if !ok {
		return fmt.Sprintf("role %q is not one of admin, viewer, uam, serviceaccountmanager, owner or extension:<name>", role)
	}
	if name == "" || len(name) > maxExtensionRoleLength || !isDNSLabel(name) {
		return fmt.Sprintf("extension role %q needs a name of lower-case letters, digits and '-' with at most %d characters", role, maxExtensionRoleLength)
	}
	return ""
}

// normalise checks that a subject is complete.
func normalise(s Subject) (Subject, error) {
	switch s.Kind {
	case KindUser, KindGroup:
		if s.Namespace != "" {
			return s, fmt.Errorf("%s %s: only a ServiceAccount has a namespace", s.Kind, s.Name)
		}
	case KindServiceAccount:
		if s.Namespace == "" {
			return s, fmt.Errorf("subject ServiceAccount %s needs a namespace", s.Name)
		}
	default:
		return s, fmt.Errorf("subject %s: kind %q is not one of User, Group, ServiceAccount", s.Name, s.Kind)
	}
	if s.Name == "" {
		return s, fmt.Errorf("%s without a name", s.Kind)
	}
	return s, nil
}

// subject renders an rbac/v1 Subject.
func subject(s Subject) map[string]any {
	s, _ = normalise(s) // members validated it
	m := map[string]any{"kind": s.Kind, "name": s.Name}
	if s.Kind == KindServiceAccount {
		m["namespace"] = s.Namespace
	} else {
		m["apiGroup"] = rbacAPIGroup
	}
	return m
}

// members renders spec.members: the owner first with the owner role, then the other members in
// the order given. Gardener gives the owner the owner role (Gardener's
// docs/usage/project/projects.md); rendering it explicitly keeps plans free of server-side
// additions. A member entry for the owner adds its roles to the owner's.
func members(owner *Subject, ms []Member) ([]any, error) {
	if owner == nil {
		return nil, errors.New("an owner is required")
	}
	o, err := normalise(*owner)
	if err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	ownerRoles := []string{}
	var rest []any
	seen := map[Subject]bool{}
	for _, m := range ms {
		s, err := normalise(Subject{Kind: m.Kind, Name: m.Name, Namespace: m.Namespace})
		if err != nil {
			return nil, fmt.Errorf("member: %w", err)
		}
		if seen[s] {
			return nil, fmt.Errorf("member %s %s is given twice", s.Kind, s.Name)
		}
		seen[s] = true
		roles, err := memberRoles(s, m.Role, m.Roles)
		if err != nil {
			return nil, err
		}
		if s == o {
			ownerRoles = append(ownerRoles, roles...)
			continue
		}
		entry := subject(s)
		entry["role"] = roles[0]
		if len(roles) > 1 {
			entry["roles"] = kube.AnyList(roles[1:])
		}
		rest = append(rest, entry)
	}
	ownerEntry := subject(o)
	ownerEntry["role"] = RoleOwner
	if len(ownerRoles) > 0 {
		ownerEntry["roles"] = kube.AnyList(ownerRoles)
	}
	return append([]any{ownerEntry}, rest...), nil
}

// memberRoles validates a member's roles and returns them main role first.
func memberRoles(s Subject, role string, more []string) ([]string, error) {
	if role == "" { // every member needs at least one role (Gardener's docs/usage/project/projects.md)
		return nil, fmt.Errorf("member %s %s needs a role", s.Kind, s.Name)
	}
	roles := append([]string{role}, more...)
	for i, r := range roles {
		if p := ValidRole(r); p != "" {
			return nil, fmt.Errorf("member %s %s: %s", s.Kind, s.Name, p)
		}
		if r == RoleOwner {
			return nil, fmt.Errorf("member %s %s: the owner role belongs to the project owner; set owner instead", s.Kind, s.Name)
		}
		if slices.Contains(roles[:i], r) {
			return nil, fmt.Errorf("member %s %s: role %s is given twice", s.Kind, s.Name, r)
		}
	}
	return roles, nil
}
