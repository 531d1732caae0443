// Package project renders the project component: a Gardener Project (core.gardener.cloud/v1beta1,
// cluster-scoped, Gardener's Project in docs/api-reference/core.md) in the virtual garden together
// with its namespace garden-<name>. Every Shoot, SecretBinding and CredentialsBinding of the
// project lives in that namespace, so a project comes before all of them (Gardener's
// docs/concepts/apiserver-admission-plugins.md, Gardener's "Gardener API Server"
// docs/concepts/apiserver.md).
package project

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the Project (Gardener's Project in docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "Project"
)

// The labels a namespace needs before the project controller adopts it instead of refusing it
// (Gardener's "Projects" docs/usage/project/projects.md, "Gardener Controller Manager"
// docs/concepts/controller-manager.md).
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

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden, which serves the Project API.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the project's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the project namespace; "" means garden-<name>.
	Namespace string `json:"namespace"`
	// Description says what the project is used for (Gardener's docs/usage/project/projects.md).
	Description string `json:"description"`
	// Purpose is a human-readable explanation of the project's purpose (Gardener's
	// docs/usage/project/projects.md).
	Purpose string `json:"purpose"`
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
	// ResourceQuota is the template of the namespace's default ResourceQuota gardener; none
	// without it.
	ResourceQuota *ResourceQuota `json:"resource_quota"`
	// Stale holds the stale check's settings; nil takes the block's defaults, Gardener's.
	Stale *Stale `json:"stale"`
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

// renderValues renders one project instance; its outputs are the project's name and namespace.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	if err := gardenapi.Named(in, "project", &v.Name, &v.Namespace); err != nil {
		return nil, err
	}
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	ns := NamespaceOf(v)
	liveNS, err := in.Observed(render.LiveRef{Cluster: v.Cluster.Name, Version: "v1", Resource: "namespaces", Name: ns})
	if err != nil {
		return nil, fmt.Errorf("project %s: read the namespace %s: %w", v.Name, ns, err)
	}
	if err := checkAdoptable(liveNS, v.Name, ns); err != nil {
		return nil, err
	}
	var notices []string
	if v.ResourceQuota != nil {
		live, err := in.Observed(render.LiveRef{Cluster: v.Cluster.Name, Version: "v1", Resource: "resourcequotas", Namespace: ns, Name: ResourceQuotaName})
		if err != nil {
			return nil, fmt.Errorf("project %s: read the ResourceQuota %s/%s: %w", v.Name, ns, ResourceQuotaName, err)
		}
		q := resourceQuota(ns, v.ResourceQuota, live)
		objs = append(objs, kube.On(v.Cluster.Name, "", q.object)...)
		if q.notice != "" {
			notices = append(notices, fmt.Sprintf("project %s: %s", v.Name, q.notice))
		}
	}
	st, err := checkStale(in, v, liveNS)
	if err != nil {
		return nil, err
	}
	out := gardenapi.Output(objs, v.Name, ns)
	out.Notices = notices
	staleOutput(out, st, v.Name)
	return out, nil
}

// checkAdoptable refuses a project namespace that exists without the labels the Project
// controller demands before it adopts one (Gardener's docs/concepts/controller-manager.md): without
// the check the landscape's apply would label and take over any namespace, kube-system included,
// which is the privilege escalation the rule prevents. A namespace this landscape applied carries
// the labels already.
func checkAdoptable(live *unstructured.Unstructured, name, ns string) error {
	if live == nil {
		return nil
	}
	labels := live.GetLabels()
	if labels[LabelRole] == LabelRoleProject && labels[LabelProjectName] == name {
		return nil
	}
	return fmt.Errorf("project %s: the namespace %s exists without the labels %s=%s and %s=%s, so Gardener would not adopt it for the project (Gardener's docs/concepts/controller-manager.md); "+
		"label it with kubectl label namespace %s %s=%s %s=%s if it is meant for the project, or give the project another namespace",
		name, ns, LabelRole, LabelRoleProject, LabelProjectName, name, ns, LabelRole, LabelRoleProject, LabelProjectName, name)
}

// NamespaceOf is the project namespace the values name: Namespace, or garden-<name>.
func NamespaceOf(v Values) string {
	if v.Namespace != "" {
		return v.Namespace
	}
	return NamespacePrefix + v.Name
}

// Objects renders the project namespace, labelled for adoption, and then the Project, so that the
// project controller finds the namespace ready to adopt.
func Objects(v Values) ([]render.Object, error) {
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

	meta := metav1.ObjectMeta{Name: ns, Labels: map[string]string{LabelRole: LabelRoleProject, LabelProjectName: v.Name}}
	if v.Stale != nil && v.Stale.Skip {
		// gardener-controller-manager's own stale check skips it too (Gardener's
		// docs/concepts/controller-manager.md).
		meta.Annotations = map[string]string{SkipStaleCheckAnnotation: "true"}
	}
	namespace, err := kube.ToUnstructured(&corev1.Namespace{ObjectMeta: meta})
	if err != nil {
		return nil, err
	}
	project := kube.Custom(APIVersion, Kind, "", v.Name, nil, map[string]any{"spec": spec})
	// The members' RBAC after the Project, as the Project controller creates it once the
	// namespace is there (Gardener's docs/concepts/controller-manager.md).
	objs := append([]*unstructured.Unstructured{namespace, project}, rbac(v.Name, ns, *v.Owner, v.Members)...)
	return kube.On(v.Cluster.Name, "", objs...), nil
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
