package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// The defaults of the owner, member and dual approval blocks, which the values built in Go here
// start from as the decoded blocks do.
var (
	ownerDefaults        = component.BlockDefaults[Subject](typeSchema, "owner")
	memberDefaults       = component.BlockDefaults[Member](typeSchema, "member")
	dualApprovalDefaults = component.BlockDefaults[DualApproval](typeSchema, "dual_approval_for_deletion")
)

func owner(name string) *Subject {
	s := rendertest.Overlay(ownerDefaults(), Subject{Name: name})
	return &s
}

func member(m Member) Member { return rendertest.Overlay(memberDefaults(), m) }

func dualApproval(d DualApproval) DualApproval { return rendertest.Overlay(dualApprovalDefaults(), d) }

const minimal = `{"cluster": {"name": "virtual"}, "owner": {"name": "john.doe@example.com"}}`

const customised = `{
  "cluster": {"name": "virtual"},
  "name": "dev",
  "description": "This is my first project",
  "purpose": "Experimenting with Gardener",
  "owner": {"kind": "User", "name": "john.doe@example.com"},
  "member": [
    {"name": "alice.doe@example.com", "kind": "User", "role": "admin", "roles": ["uam", "extension:foo"]},
    {"name": "viewers", "kind": "Group", "role": "viewer"},
    {"name": "robot", "kind": "ServiceAccount", "namespace": "garden-dev", "role": "serviceaccountmanager"},
    {"name": "john.doe@example.com", "kind": "User", "role": "viewer"}
  ],
  "tolerations": [{"key": "dedicated", "value": "dev", "default": true}, {"key": "gpu"}],
  "dual_approval_for_deletion": [{"resource": "shoots", "match_labels": {"env": "prod"}, "include_service_accounts": false}],
  "labels": {"tier": "dev"},
  "project_controller": {
    "minimum_lifetime_days": 30, "stale_grace_period_days": 14, "stale_expiration_time_days": 90, "stale_sync_period": "12h",
    "quotas": [
      {"hard": {"count/shoots.core.gardener.cloud": "10"}, "labels": {}, "annotations": {}, "project_selector": {"tier": "trial"}},
      {"hard": {"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"}, "labels": {"team": "dev"}, "annotations": {}, "project_selector": {}}
    ]
  }
}`

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "local"}, map[string]string{"minimal": minimal, "customised": customised})
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.JSONConfigOf(t, Type, minimal)})
	require.NoError(t, err)
	assert.Equal(t, "local", out.Outputs["name"].AsString(), "the block name names the project")
	assert.Equal(t, "garden-local", out.Outputs["namespace"].AsString())
}

// The Project names its namespace always, so that gardener-controller-manager does not pick
// garden-<name>-<hash> (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md),
// and a new project renders nothing but the Project: the controller creates the namespace.
func TestProjectNamesItsNamespace(t *testing.T) {
	project, err := Project(values(Values{Cluster: cluster, Name: "dev", Owner: owner("john"), Labels: map[string]string{"tier": "trial"}}))
	require.NoError(t, err)
	assert.Equal(t, "core.gardener.cloud/v1beta1", project.GetAPIVersion())
	assert.Equal(t, "Project", project.GetKind())
	assert.Empty(t, project.GetNamespace(), "Project is cluster-scoped")
	assert.Equal(t, "garden-dev", project.Object["spec"].(map[string]any)["namespace"])
	assert.Equal(t, map[string]string{"tier": "trial"}, project.GetLabels(), "the quota templates select projects by their labels")

	out, err := Type.RenderConfig(newWorld().input(t, minimal))
	require.NoError(t, err)
	require.Len(t, out.Objects, 1)
	assert.Equal(t, "Project", out.Objects[0].Object.GetKind())
	assert.Equal(t, "virtual", out.Objects[0].Cluster)
}

var cluster = decode.Cluster{Name: "virtual"}

// projectOf renders the values' Project.
func projectOf(t *testing.T, v Values) *unstructured.Unstructured {
	t.Helper()
	p, err := Project(v)
	require.NoError(t, err)
	return p
}

func TestOwnerGetsTheOwnerRole(t *testing.T) {
	spec := projectOf(t, values(Values{Cluster: cluster, Name: "dev", Owner: owner("john"), Members: []Member{
		member(Member{Name: "alice", Role: "admin"}),
		member(Member{Name: "john", Role: "viewer", Roles: []string{"extension:foo"}}),
	}})).Object["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "john"}, spec["owner"])
	// Gardener's docs/usage/project/projects.md: the owner role; the owner's own member entry merges
	// into it.
	assert.Equal(t, []any{
		map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "john", "role": "owner", "roles": []any{"viewer", "extension:foo"}},
		map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice", "role": "admin"},
	}, spec["members"])
}

func TestServiceAccountSubjectsHaveANamespaceAndNoGroup(t *testing.T) {
	members := projectOf(t, values(Values{Cluster: cluster, Name: "dev", Owner: owner("john"), Members: []Member{
		member(Member{Kind: KindServiceAccount, Name: "robot", Namespace: "garden-dev", Role: "serviceaccountmanager"}),
	}})).Object["spec"].(map[string]any)["members"].([]any)
	assert.Equal(t, map[string]any{"kind": "ServiceAccount", "name": "robot", "namespace": "garden-dev", "role": "serviceaccountmanager"}, members[1])
}

func TestDefaultTolerationsAreAlsoAllowed(t *testing.T) {
	project := projectOf(t, values(Values{Cluster: cluster, Name: "dev", Owner: owner("john"), Tolerations: []Toleration{{Key: "a", Default: true}, {Key: "b", Value: "x"}}}))
	assert.Equal(t, map[string]any{
		"defaults":  []any{map[string]any{"key": "a"}},
		"whitelist": []any{map[string]any{"key": "a"}, map[string]any{"key": "b", "value": "x"}},
	}, project.Object["spec"].(map[string]any)["tolerations"])
}

func TestDualApprovalMatchesEverythingByDefault(t *testing.T) {
	project := projectOf(t, values(Values{Cluster: cluster, Name: "dev", Owner: owner("john"), DualApprovalForDeletion: []DualApproval{dualApproval(DualApproval{})}}))
	// Gardener's docs/usage/project/projects.md: matchLabels {} matches all; includeServiceAccounts
	// defaults to true.
	assert.Equal(t, []any{map[string]any{
		"resource": "shoots", "selector": map[string]any{"matchLabels": map[string]any{}}, "includeServiceAccounts": true,
	}}, project.Object["spec"].(map[string]any)["dualApprovalForDeletion"])
}

func TestNames(t *testing.T) {
	tests := []struct {
		name, namespace, want string
	}{
		{"abcdefghij", "", ""},
		{"garden", "garden", ""},
		{"abcdefghijk", "", "longer than 10 characters"},
		{"Dev", "", "not a DNS label"},
		{"a--b", "", `contains "--"`},
		{"", "", "project name is empty"},
		{"dev", "team-dev", `does not start with garden-`},
		{"dev", "garden-Dev", "not a DNS label"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.namespace, func(t *testing.T) {
			_, err := Project(values(Values{Cluster: cluster, Name: tt.name, Namespace: tt.namespace, Owner: owner("john")}))
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestErrors(t *testing.T) {
	owner := owner("john")
	tests := []struct {
		name string
		v    Values
		want string
	}{
		{"no owner", values(Values{}), "an owner is required"},
		{"bad owner kind", values(Values{Owner: &Subject{Kind: "Robot", Name: "r"}}), `kind "Robot" is not one of User, Group, ServiceAccount`},
		{"service account without namespace", values(Values{Owner: owner, Members: []Member{member(Member{Kind: KindServiceAccount, Name: "r", Role: "admin"})}}), "ServiceAccount r needs a namespace"},
		{"user with namespace", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Namespace: "x", Role: "admin"})}}), "only a ServiceAccount has a namespace"},
		{"member without role", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a"})}}), "member User a needs a role"},
		{"unknown role", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Role: "editor"})}}), `role "editor" is not one of`},
		{"long extension role", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Role: "extension:abcdefghijklmnopqrstu"})}}), "at most 20 characters"},
		{"owner role for a member", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Role: "owner"})}}), "the owner role belongs to the project owner"},
		{"repeated role", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Role: "admin", Roles: []string{"admin"}})}}), "role admin is given twice"},
		{"repeated member", values(Values{Owner: owner, Members: []Member{member(Member{Name: "a", Role: "admin"}), member(Member{Name: "a", Role: "viewer"})}}), "member User a is given twice"},
		{"repeated toleration", values(Values{Owner: owner, Tolerations: []Toleration{{Key: "a"}, {Key: "a"}}}), "toleration a= is given twice"},
		{"dual approval for secrets", values(Values{Owner: owner, DualApprovalForDeletion: []DualApproval{dualApproval(DualApproval{Resource: "secrets"})}}), "only shoots are supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.v.Name = "dev"
			_, err := Project(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestUnknownNameIsDeferred(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.ConfigOf(Type, rendertest.FromJSON(t, `{"cluster": {"name": "virtual"}, "name": "${known after apply}", "owner": {"name": "john"}}`).AsValueMap())})
	assert.ErrorIs(t, err, render.ErrDeferred)
}

func TestUnknownAttributeIsRejected(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Name: "local", Config: rendertest.ConfigOf(Type, rendertest.FromJSON(t, `{"cluster": {"name": "virtual"}, "owner": {"name": "john"}, "colour": "red"}`).AsValueMap())})
	assert.ErrorContains(t, err, "unknown field")
}
