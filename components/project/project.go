// Package project renders the project component: a Gardener Project (core.gardener.cloud/v1beta1,
// cluster-scoped, Gardener's Project in docs/api-reference/core.md) in the virtual garden. Every
// Shoot, SecretBinding and CredentialsBinding of the project lives in its namespace, so a project
// comes before all of them (Gardener's docs/concepts/apiserver-admission-plugins.md, Gardener's
// "Gardener API Server" docs/concepts/apiserver.md).
//
// What gardener-controller-manager's project controllers do for a Project is theirs alone, and
// the component predicts it instead of rendering it (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md): the project controller creates the namespace (or adopts
// an existing one that carries the project labels), the members' RBAC and the ResourceQuota
// gardener from its configuration's templates (predict.go, rbac.go, quota.go); the stale controller
// marks an unused project stale and deletes it (stale.go). The component renders the Project,
// and, where the landscape needs them, the adoption labels of an existing namespace and the
// stale check's opt-out (namespace.go). What earlier versions rendered of the controllers' objects
// is handed over to them (render.Output.HandedOver).
package project

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the Project (Gardener's Project in docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "Project"
)

// The labels a namespace needs before the project controller adopts it instead of refusing it,
// and which it gives a namespace it creates (namespaceLabelsFromProject in
// pkg/controllermanager/controller/project/project/reconciler.go at Gardener v1.120.0; Gardener's
// "Projects" docs/usage/project/projects.md).
const (
	LabelRole        = "gardener.cloud/role"
	LabelRoleProject = "project"
	LabelProjectName = "project.gardener.cloud/name"
)

// NamespacePrefix starts every project namespace the ProjectValidator accepts (Gardener's
// "APIServer Admission Plugins" docs/concepts/apiserver-admission-plugins.md).
const NamespacePrefix = "garden-"

// gardenNamespace is the namespace of the landscape's own "garden" project. Gardener's
// documentation only names the garden- prefix (docs/concepts/apiserver-admission-plugins.md); an
// operator expects the garden project to own the garden namespace, as Gardener's own validator
// allows, so it is accepted as well.
const gardenNamespace = "garden"

// controllerManager is the binary whose controllers the predictions are of.
const controllerManager = "gardener-controller-manager"

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden, which serves the Project API.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the project's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the project namespace; "" means garden-<name>. The Project always names it
	// (spec.namespace): without it gardener-controller-manager would pick
	// garden-<name>-<hash of the uid> (reconcileNamespaceForProject in
	// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0).
	Namespace string `json:"namespace"`
	// Description says what the project is used for (Gardener's docs/usage/project/projects.md).
	Description string `json:"description"`
	// Purpose is a human-readable explanation of the project's purpose (Gardener's
	// docs/usage/project/projects.md).
	Purpose string `json:"purpose"`
	// Labels are the Project's labels, by which the controller manager's quota templates
	// select it.
	Labels map[string]string `json:"labels"`
	// Owner is the project's main contact; it becomes spec.owner and a member with the owner
	// role (Gardener's docs/usage/project/projects.md).
	Owner *Subject `json:"owner"`
	// Members are the other people, groups and service accounts with a role in the project.
	Members []Member `json:"member"`
	// Tolerations are the seed taints shoots of the project may tolerate.
	Tolerations []Toleration `json:"tolerations"`
	// DualApprovalForDeletion rules make a second subject confirm deletions (Gardener's
	// docs/usage/project/projects.md).
	DualApprovalForDeletion []DualApproval `json:"dual_approval_for_deletion"`
	// Stale holds the project's opt-out of the stale check; nil takes part in it.
	Stale *Stale `json:"stale"`
	// ProjectController are the settings the controller manager's project controllers run with
	// (its output project_controller); nil means gardener-controller-manager's defaults.
	ProjectController *projectcontroller.Settings `json:"project_controller"`
}

// settings are the project controllers' settings the predictions follow.
func (v Values) settings() projectcontroller.Settings {
	if v.ProjectController == nil {
		return projectcontroller.Defaults
	}
	return *v.ProjectController
}

// Toleration lets shoots of the project tolerate a seed taint (Gardener's ProjectStatus in
// docs/api-reference/core.md, Toleration in docs/api-reference/core.md).
type Toleration struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Default also adds the toleration to every shoot of the project; otherwise shoots may only
	// choose it. A default toleration is always allowed as well, so it lands in both lists.
	Default bool `json:"default"`
}

// DualApproval is one dual-approval-for-deletion rule (Gardener's DualApprovalForDeletion in
// docs/api-reference/core.md).
type DualApproval struct {
	// Resource is the resource the rule applies to: shoots, the only one implemented (Gardener's
	// docs/usage/project/projects.md).
	Resource string `json:"resource"`
	// MatchLabels selects the objects; nil or empty matches every object (Gardener's
	// docs/usage/project/projects.md).
	MatchLabels map[string]string `json:"match_labels"`
	// IncludeServiceAccounts also demands dual approval from service accounts (Gardener's
	// docs/usage/project/projects.md).
	IncludeServiceAccounts bool `json:"include_service_accounts"`
}

// Type is the project component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// live is what the rendering reads of the virtual garden: the Project and its namespace, nil
// where they do not exist (yet).
type live struct {
	project, namespace *unstructured.Unstructured
}

// renderValues renders one project instance: the Project, the namespace's labels or opt-out
// where needed, and the predictions of gardener-controller-manager's project controllers; its
// outputs are the project's name and namespace.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	if err := gardenapi.Named(in, "project", &v.Name, &v.Namespace); err != nil {
		return nil, err
	}
	project, err := Project(v)
	if err != nil {
		return nil, err
	}
	ns := NamespaceOf(v)
	var l live
	if l.project, err = in.Observed(render.LiveRef{Cluster: v.Cluster.Name, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects", Name: v.Name}); err != nil {
		return nil, fmt.Errorf("project %s: read the Project: %w", v.Name, err)
	}
	if l.namespace, err = in.Observed(render.LiveRef{Cluster: v.Cluster.Name, Version: "v1", Resource: "namespaces", Name: ns}); err != nil {
		return nil, fmt.Errorf("project %s: read the namespace %s: %w", v.Name, ns, err)
	}
	namespace, notice, err := namespaceObject(v, in.Address, l)
	if err != nil {
		return nil, err
	}
	objs := []*unstructured.Unstructured{project}
	if namespace != nil {
		objs = append([]*unstructured.Unstructured{namespace}, objs...) // before the Project, which adopts it
	}
	out := gardenapi.Output(kube.On(v.Cluster.Name, "", objs...), v.Name, ns)
	if notice != "" {
		out.Notices = append(out.Notices, fmt.Sprintf("project %s: %s", v.Name, notice))
	}
	out.HandedOver = handedOver(v.Cluster.Name, v.Name, ns)
	predictions, err := projectControllerPredictions(in, v, project, l)
	if err != nil {
		return nil, err
	}
	out.Predictions = predictions
	st, err := checkStale(in, v, l)
	if err != nil {
		return nil, err
	}
	st.addTo(out)
	return out, nil
}

// NamespaceOf is the project namespace the values name: Namespace, or garden-<name>.
func NamespaceOf(v Values) string {
	if v.Namespace != "" {
		return v.Namespace
	}
	return NamespacePrefix + v.Name
}

// Project renders the Project: spec.namespace always set, the owner first among the members.
func Project(v Values) (*unstructured.Unstructured, error) {
	if err := validateName(v.Name); err != nil {
		return nil, err
	}
	ns := NamespaceOf(v)
	if err := validateNamespace(ns); err != nil {
		return nil, err
	}
	members, err := members(v.Owner, v.Members)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", v.Name, err)
	}
	spec := map[string]any{
		"namespace": ns,
		"owner":     subject(*v.Owner),
		"members":   members,
	}
	if v.Description != "" {
		spec["description"] = v.Description
	}
	if v.Purpose != "" {
		spec["purpose"] = v.Purpose
	}
	if t, err := tolerations(v.Tolerations); err != nil {
		return nil, fmt.Errorf("project %s: %w", v.Name, err)
	} else if t != nil {
		spec["tolerations"] = t
	}
	if d, err := dualApprovals(v.DualApprovalForDeletion); err != nil {
		return nil, fmt.Errorf("project %s: %w", v.Name, err)
	} else if d != nil {
		spec["dualApprovalForDeletion"] = d
	}
	return kube.Custom(APIVersion, Kind, "", v.Name, v.Labels, map[string]any{"spec": spec}), nil
}

// tolerations renders spec.tolerations: every toleration is allowed (whitelist), default ones
// are also added to shoots (defaults). Gardener refuses defaults that are not allowed, which
// this shape rules out.
func tolerations(ts []Toleration) (map[string]any, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	keyValues := make([]gardenapi.Toleration, len(ts))
	for i, t := range ts {
		keyValues[i] = gardenapi.Toleration{Key: t.Key, Value: t.Value}
	}
	whitelist, err := gardenapi.Tolerations(keyValues)
	if err != nil {
		return nil, err
	}
	defaults := []any{}
	for i, t := range ts {
		if t.Default {
			defaults = append(defaults, whitelist[i])
		}
	}
	out := map[string]any{"whitelist": whitelist}
	if len(defaults) > 0 {
		out["defaults"] = defaults
	}
	return out, nil
}

// dualApprovals renders spec.dualApprovalForDeletion. An empty matchLabels map is kept as it is:
// it means "every object", whereas a missing selector would mean none (Gardener's
// docs/usage/project/projects.md).
func dualApprovals(ds []DualApproval) ([]any, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	out := make([]any, 0, len(ds))
	seen := map[string]bool{}
	for _, d := range ds {
		resource := d.Resource
		// Gardener's docs/usage/project/projects.md: Shoot is the only resource for which dual approval
		// is implemented.
		if resource != "shoots" {
			return nil, fmt.Errorf("dual approval for deletion of %q: only shoots are supported", resource)
		}
		if seen[resource] {
			return nil, fmt.Errorf("dual approval for deletion of %s is given twice", resource)
		}
		seen[resource] = true
		out = append(out, map[string]any{
			"resource":               resource,
			"selector":               gardenapi.MatchLabels(d.MatchLabels),
			"includeServiceAccounts": d.IncludeServiceAccounts,
		})
	}
	return out, nil
}
