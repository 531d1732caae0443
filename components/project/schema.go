package project

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a Gardener Project in the virtual garden (Gardener's Project in docs/api-reference/core.md, "Projects"
// docs/usage/project/projects.md): the first thing before any shoot (Gardener's "Gardener API
// Server" docs/concepts/apiserver.md).
func typeSchema() *schema.Schema {
	subjectKind := func() schema.Attribute {
		return schema.Attribute{Name: "kind", Type: cty.String, Default: cty.StringVal(KindUser), AllowedValues: []string{KindUser, KindGroup, KindServiceAccount}, Description: "Whether the subject is a User, a Group or a ServiceAccount."}
	}
	subjectNamespace := func() schema.Attribute {
		return schema.Attribute{Name: "namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of a ServiceAccount subject; only service accounts have one."}
	}
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "project",
		Description: "A Gardener project in the virtual garden: the Project, whose namespace garden-<name>, members' RBAC and ResourceQuota gardener-controller-manager creates and plans predict. " +
			"An existing namespace the project names gets the labels that let gardener-controller-manager adopt it. " +
			"Shoots, secret bindings, credentials bindings and quotas of the project live in that namespace.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the Project is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(projectName()), Description: "The project's name, at most 10 characters; the block name when unset."},
				// Gardener's Project in docs/api-reference/core.md (spec.namespace is immutable), Gardener's
				// "APIServer Admission Plugins" docs/concepts/apiserver-admission-plugins.md (must start with
				// garden-).
				{Name: "namespace", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The project namespace, which must start with garden-; garden-<name> when unset."},
				{Name: "description", Type: cty.String, Description: "What the project is used for, for its members and the operators."},
				{Name: "purpose", Type: cty.String, Description: "Why the project exists, for its members and the operators."},
				{Name: "labels", Type: cty.Map(cty.String), Description: "Labels of the Project; gardener-controller-manager's quota templates select projects by them (project_selector)."},
				{
					Name: "project_controller", Type: projectcontroller.OutputType,
					Description: "The settings gardener-controller-manager's project and stale controllers run with: the output project_controller of the garden (garden.<name>.project_controller) or of the gardener_controller_manager component. " +
						"Plans predict the project's namespace, RBAC, ResourceQuota and staleness from them; without it, from gardener-controller-manager's defaults (no ResourceQuota; 30, 14 and 90 days; checked every 12h).",
				},
			},
			Blocks: []schema.Block{
				{
					Name: "owner", Required: true,
					Description: "The project's owner and main contact; it gets the owner role, which combines admin, uam and serviceaccountmanager.",
					Body: schema.Body{Attributes: []schema.Attribute{
						subjectKind(),
						{Name: "name", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The owner's user or group name, such as an e-mail address, or the service account's name."},
						subjectNamespace(),
					}},
				},
				{
					Name: "member", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A member of the project, labelled with the user or group name (often an e-mail address) or the service account name.",
					Body: schema.Body{Attributes: []schema.Attribute{
						subjectKind(),
						subjectNamespace(),
						{Name: "role", Type: cty.String, Required: true, Checks: attr.Checks(projectRole()), Description: "The member's main role: admin, viewer, uam, serviceaccountmanager or extension:<name>."},
						{Name: "roles", Type: attr.StringList, Checks: attr.Checks(projectRole()), Description: "Further roles of the member, from the same set as role."},
					}},
				},
				{
					Name: "tolerations", Nesting: schema.NestingList, Labels: []string{"key"},
					Description: "A seed taint, by key, that shoots of the project may tolerate.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "value", Type: cty.String, Description: "The taint value tolerated; any value when unset."},
						{Name: "default", Type: cty.Bool, Default: cty.False, Description: "Whether every shoot of the project gets the toleration; otherwise shoots may only choose it."},
					}},
				},
				{
					Name: "dual_approval_for_deletion", Nesting: schema.NestingList,
					Description: "Demands that a second subject, not the one confirming it, sends the deletion of matching shoots (four-eyes principle).",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "resource", Type: cty.String, Default: cty.StringVal("shoots"), AllowedValues: []string{"shoots"}, Description: "The resource the rule applies to; Gardener implements it for shoots only."},
						{Name: "match_labels", Type: cty.Map(cty.String), Description: "Labels the objects must carry for the rule to apply; every object when unset."},
						{Name: "include_service_accounts", Type: cty.Bool, Default: cty.True, Description: "Whether deletions by service accounts, such as CI jobs, need dual approval too."},
					}},
				},
				{
					// Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md: the opt-out of
					// the Stale Projects controller; its days are the controller manager's.
					Name: "stale", Nesting: schema.NestingSingle,
					Description: "The project's part in the stale check of gardener-controller-manager's Stale Projects controller, whose days are the controller manager's settings.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "skip", Type: cty.Bool, Description: "Opt the project out of the stale check: the namespace gets the annotation project.gardener.cloud/skip-stale-check=true, once gardener-controller-manager created it."},
						},
						Removed: []schema.Removed{
							{Name: "minimum_lifetime_days", Detail: staleDaysMoved("project_minimum_lifetime_days")},
							{Name: "grace_period_days", Detail: staleDaysMoved("project_stale_grace_period_days")},
							{Name: "expiration_days", Detail: staleDaysMoved("project_stale_expiration_time_days")},
						},
					},
				},
			},
			Removed: []schema.Removed{{
				Name: "resource_quota", Block: true,
				Detail: "gardener-controller-manager's project controller keeps the ResourceQuota gardener of project namespaces, from the quota templates of its configuration: " +
					"move the limits into a project_quota block of the garden's virtual_cluster.gardener.controller_manager (or of the gardener_controller_manager component), " +
					"with a project_selector matching labels you give this project (labels = { ... }) for a template of its own, " +
					"and set project_controller = garden.<name>.project_controller here so that plans predict the quota.",
			}},
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The project's name."},
			{Name: "namespace", Type: cty.String, Description: "The project namespace, where the project's shoots and bindings go."},
		},
	}
}

// projectName demands a name gardener-apiserver accepts for a project: a DNS label of at most 10
// characters without "--" (the separator of shoot technical IDs, Gardener's "Logging"
// docs/usage/observability/logging.md).
func projectName() schema.Check {
	return schema.Check{Name: "project_name", Describe: "a DNS label of at most 10 characters without --", Func: func(v cty.Value) string {
		v, _ = v.Unmark()
		if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			return ""
		}
		s := v.AsString()
		switch {
		case len(s) > 10:
			return fmt.Sprintf("The project name %q is longer than 10 characters.", s)
		case len(validation.IsDNS1123Label(s)) > 0:
			return fmt.Sprintf("The project name %q is not a DNS label of lower-case letters, digits and '-'.", s)
		case strings.Contains(s, "--"):
			return fmt.Sprintf("The project name %q contains --, which separates the parts of shoot technical IDs.", s)
		}
		return ""
	}}
}

// projectRole demands a project role (Gardener's docs/usage/project/projects.md), or every element
// of a list to be one; extension role names have at most 20 characters (Gardener's "Project Roles"
// docs/extensions/project-roles.md).
func projectRole() schema.Check {
	problem := func(r string) string {
		switch r {
		case "admin", "viewer", "uam", "serviceaccountmanager":
			return ""
		case "owner":
			return "The owner role belongs to the project owner; set the owner block instead."
		}
		name, ok := strings.CutPrefix(r, "extension:")
		if !ok {
			return fmt.Sprintf("The role %q is not one of admin, viewer, uam, serviceaccountmanager or extension:<name>.", r)
		}
		if len(name) > 20 || len(validation.IsDNS1123Label(name)) > 0 {
			return fmt.Sprintf("The extension role %q needs a name of at most 20 lower-case letters, digits and '-'.", r)
		}
		return ""
	}
	return schema.Check{Name: "project_role", Describe: "admin, viewer, uam, serviceaccountmanager or extension:<name> (for a list, every element)", Func: func(v cty.Value) string {
		v, _ = v.UnmarkDeep()
		if v.IsNull() || !v.IsWhollyKnown() {
			return ""
		}
		if v.Type() == cty.String {
			return problem(v.AsString())
		}
		if !v.CanIterateElements() {
			return ""
		}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.Type() == cty.String && !e.IsNull() {
				if p := problem(e.AsString()); p != "" {
					return p
				}
			}
		}
		return ""
	}}
}

// staleDaysMoved says where a stale block's days went: to the controller manager's settings,
// which are global (ProjectControllerConfiguration in
// pkg/controllermanager/apis/config/v1alpha1/types.go at Gardener v1.120.0).
func staleDaysMoved(setting string) string {
	return "The stale controller's days are gardener-controller-manager's, the same for every project: set " + setting +
		" in the garden's virtual_cluster.gardener.controller_manager block (or the gardener_controller_manager component), and project_controller = garden.<name>.project_controller here so that plans predict with it; stale { skip } stays here."
}
