package project

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/engine/render"
)

// projectControllerName is the loop the predictions of the Project, its namespace, RBAC and
// ResourceQuota are of (ControllerName in pkg/controllermanager/controller/project/project at
// Gardener v1.120.0).
const projectControllerName = "project"

// predictor makes the predictions of one project's controllers.
type predictor struct {
	in      render.Input
	v       Values
	cluster string
	out     []render.Prediction
}

// add predicts that controller will act on an object when it reconciles the Project.
func (p *predictor) add(controller, apiVersion, kind, namespace, name, action, description string) {
	p.out = append(p.out, render.Prediction{
		Actor: controllerManager, Controller: controller, Cluster: p.cluster,
		APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name, Action: action, Description: description,
	})
}

// projectControllerPredictions predicts what gardener-controller-manager's project controller
// will do for the Project as the landscape renders it (Reconciler.reconcile in
// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0): the finalizer and
// the Ready phase, the namespace it creates or adopts, the ResourceQuota of the first matching
// template and the members' RBAC, each only where the live object differs from what the
// controller writes. It acts when it reconciles the Project (its generation changed, or its
// cache's resync), so the predictions carry no time.
func projectControllerPredictions(in render.Input, v Values, project *unstructured.Unstructured, l live) ([]render.Prediction, error) {
	p := &predictor{in: in, v: v, cluster: v.Cluster.Name}
	ns := NamespaceOf(v)
	uid := "the Project's uid"
	if l.project != nil {
		uid = string(l.project.GetUID())
	}
	if phase, _, _ := unstructured.NestedString(objectOrEmpty(l.project), "status", "phase"); phase != "Ready" {
		p.add(projectControllerName, APIVersion, Kind, "", v.Name, "update",
			"adds the finalizer gardener and reports status.phase Ready once the namespace, ResourceQuota and RBAC are in place")
	}
	switch {
	case l.namespace == nil:
		p.add(projectControllerName, "v1", "Namespace", "", ns, "create", fmt.Sprintf(
			"creates the project namespace with the labels %s=%s and %s=%s, the annotations %s=true and %s=%s, and the Project as its controller; it deletes the namespace with the Project",
			LabelRole, LabelRoleProject, LabelProjectName, v.Name, AnnotationCreatedByProjectController, AnnotationNamespaceProject, uid))
	case !projectsNamespace(l.namespace, v.Name):
		what := fmt.Sprintf("adopts the existing namespace: the Project as its controller and the annotation %s=%s", AnnotationNamespaceProject, uid)
		what += fmt.Sprintf(", and %s=true, so that deleting the Project leaves the namespace without the project's labels", AnnotationKeepAfterProjectDeletion)
		p.add(projectControllerName, "v1", "Namespace", "", ns, "update", what)
	}
	if err := p.resourceQuota(ns, l.namespace != nil); err != nil {
		return nil, err
	}
	spec, _, _ := unstructured.NestedMap(project.Object, "spec")
	owner, _ := spec["owner"].(map[string]any)
	members, _ := spec["members"].([]any)
	if err := p.rbac(ns, l.namespace != nil, projectRBAC(v.Name, ns, owner, members)); err != nil {
		return nil, err
	}
	if err := p.staleExtensionRoles(ns, l.namespace != nil, members); err != nil {
		return nil, err
	}
	return p.out, nil
}

func objectOrEmpty(u *unstructured.Unstructured) map[string]any {
	if u == nil {
		return map[string]any{}
	}
	return u.Object
}

// observed reads a live object; namespaced ones only when the namespace exists.
func (p *predictor) observed(group, version, resource, namespace, name string, namespaceExists bool) (*unstructured.Unstructured, error) {
	if namespace != "" && !namespaceExists {
		return nil, nil
	}
	u, err := p.in.Observed(render.LiveRef{Cluster: p.cluster, Group: group, Version: version, Resource: resource, Namespace: namespace, Name: name})
	if err != nil {
		return nil, fmt.Errorf("project %s: read %s %s: %w", p.v.Name, resource, name, err)
	}
	return u, nil
}

// resourceQuota predicts the ResourceQuota gardener from the first template of the controller
// manager's configuration whose project selector matches the Project's labels; none matching,
// the controller leaves the namespace without one (and a quota an earlier version of gardener
// rendered, which is released to it, as it is).
func (p *predictor) resourceQuota(ns string, namespaceExists bool) error {
	tmpl := p.v.settings().QuotaFor(p.v.Labels)
	if tmpl == nil {
		return nil
	}
	live, err := p.observed("", "v1", "resourcequotas", ns, ResourceQuotaName, namespaceExists)
	if err != nil {
		return err
	}
	c := quotaFor(tmpl, live)
	switch {
	case live == nil:
		p.add(projectControllerName, "v1", "ResourceQuota", ns, ResourceQuotaName, "create", c.description(true))
	case c.changes():
		p.add(projectControllerName, "v1", "ResourceQuota", ns, ResourceQuotaName, "update", c.description(false))
	case !controlledBy(live, p.v.Name):
		p.add(projectControllerName, "v1", "ResourceQuota", ns, ResourceQuotaName, "update", "makes the Project the ResourceQuota's controller")
	}
	return nil
}

// controlledBy reports whether the Project is the object's controller.
func controlledBy(u *unstructured.Unstructured, project string) bool {
	owner := metav1.GetControllerOf(u)
	return owner != nil && owner.APIVersion == APIVersion && owner.Kind == Kind && owner.Name == project
}

// rbac predicts the project RBAC where the live objects differ from what the controller writes.
func (p *predictor) rbac(ns string, namespaceExists bool, objs []rbacObject) error {
	for _, o := range objs {
		meta, kind, resource := rbacMeta(o.object)
		live, err := p.observed(rbacGroup, "v1", resource, meta.Namespace, meta.Name, namespaceExists)
		if err != nil {
			return err
		}
		apiVersion := rbacv1.SchemeGroupVersion.String()
		if live == nil {
			p.add(projectControllerName, apiVersion, kind, meta.Namespace, meta.Name, "create", rbacCreated(o))
			continue
		}
		if what, err := rbacDifference(o, live, p.v.Name); err != nil {
			return fmt.Errorf("project %s: %s %s: %w", p.v.Name, kind, meta.Name, err)
		} else if what != "" {
			p.add(projectControllerName, apiVersion, kind, meta.Namespace, meta.Name, "update", what)
		}
	}
	return nil
}

// rbacMeta is an RBAC object's metadata, kind and resource.
func rbacMeta(o any) (metav1.ObjectMeta, string, string) {
	switch o := o.(type) {
	case *rbacv1.ClusterRole:
		return o.ObjectMeta, "ClusterRole", "clusterroles"
	case *rbacv1.ClusterRoleBinding:
		return o.ObjectMeta, "ClusterRoleBinding", "clusterrolebindings"
	case *rbacv1.RoleBinding:
		return o.ObjectMeta, "RoleBinding", "rolebindings"
	}
	panic(fmt.Sprintf("project: no RBAC object: %T", o))
}

// rbacCreated describes the creation of an RBAC object.
func rbacCreated(o rbacObject) string {
	switch b := o.object.(type) {
	case *rbacv1.ClusterRoleBinding:
		return fmt.Sprintf("creates the ClusterRoleBinding of the project's %s role for %s", o.role, subjectsText(b.Subjects))
	case *rbacv1.RoleBinding:
		return fmt.Sprintf("creates the RoleBinding of the project's %s role, to ClusterRole %s, for %s", o.role, b.RoleRef.Name, subjectsText(b.Subjects))
	}
	return fmt.Sprintf("creates the ClusterRole of the project's %s role", o.role)
}

// rbacDifference says what the controller changes on a live RBAC object, "" when nothing: the
// rules (not of an aggregated extension role, whose rules the aggregation fills in), its
// aggregation, the extension roles' labels, the binding's role and subjects, and the Project
// as the controller (strategic merge patches of GetAndCreateOrStrategicMergePatch in
// pkg/component/garden/projectrbac/projectrbac.go at v1.120.0).
func rbacDifference(o rbacObject, live *unstructured.Unstructured, project string) (string, error) {
	var changes []string
	switch want := o.object.(type) {
	case *rbacv1.ClusterRole:
		have := &rbacv1.ClusterRole{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, have); err != nil {
			return "", err
		}
		if want.AggregationRule == nil && !equality.Semantic.DeepEqual(normalRules(want.Rules), normalRules(have.Rules)) {
			changes = append(changes, "sets its rules")
		}
		if !equality.Semantic.DeepEqual(want.AggregationRule, have.AggregationRule) {
			changes = append(changes, "sets its aggregation rule")
		}
		if !labelsContain(have.Labels, want.Labels) {
			changes = append(changes, "sets its labels")
		}
	case *rbacv1.ClusterRoleBinding:
		have := &rbacv1.ClusterRoleBinding{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, have); err != nil {
			return "", err
		}
		changes = append(changes, bindingChanges(want.RoleRef, have.RoleRef, want.Subjects, have.Subjects)...)
	case *rbacv1.RoleBinding:
		have := &rbacv1.RoleBinding{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, have); err != nil {
			return "", err
		}
		changes = append(changes, bindingChanges(want.RoleRef, have.RoleRef, want.Subjects, have.Subjects)...)
		if !labelsContain(have.Labels, want.Labels) {
			changes = append(changes, "sets its labels")
		}
	}
	if !controlledBy(live, project) {
		changes = append(changes, "makes the Project its controller")
	}
	if len(changes) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%s (role %s)", strings.Join(changes, "; "), o.role), nil
}

// bindingChanges names what differs between the binding the controller writes and the live one.
func bindingChanges(wantRef, haveRef rbacv1.RoleRef, want, have []rbacv1.Subject) []string {
	var out []string
	if wantRef != haveRef {
		out = append(out, "refers it to ClusterRole "+wantRef.Name)
	}
	if !equality.Semantic.DeepEqual(unique(want), unique(have)) {
		out = append(out, fmt.Sprintf("sets its subjects to %s (live: %s)", subjectsText(want), subjectsText(have)))
	}
	return out
}

// normalRules makes empty and absent rules compare equal.
func normalRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	if len(rules) == 0 {
		return nil
	}
	return rules
}

// labelsContain reports whether have holds every label of want.
func labelsContain(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// staleExtensionRoles predicts the deletion of the ClusterRoles and RoleBindings of extension
// roles no member has any more (DeleteStaleExtensionRolesResources in
// pkg/component/garden/projectrbac/projectrbac.go at v1.120.0), found by their labels.
func (p *predictor) staleExtensionRoles(ns string, namespaceExists bool, members []any) error {
	wanted := map[string]bool{}
	for _, m := range members {
		entry, _ := m.(map[string]any)
		roles := []any{entry["role"]}
		if more, ok := entry["roles"].([]any); ok {
			roles = append(roles, more...)
		}
		for _, r := range roles {
			if ext, ok := strings.CutPrefix(fmt.Sprint(r), RoleExtensionPrefix); ok {
				wanted[ext] = true
			}
		}
	}
	selector := LabelRole + "=" + labelRoleExtensionProjectRole + "," + LabelProjectName + "=" + p.v.Name
	for _, r := range []struct{ resource, kind, namespace string }{{"clusterroles", "ClusterRole", ""}, {"rolebindings", "RoleBinding", ns}} {
		if r.namespace != "" && !namespaceExists {
			continue
		}
		items, err := p.in.Listed(render.ListRef{Cluster: p.cluster, Group: rbacGroup, Version: "v1", Resource: r.resource, Namespace: r.namespace, LabelSelector: selector})
		if err != nil {
			return fmt.Errorf("project %s: list the extension roles' %s: %w", p.v.Name, r.resource, err)
		}
		for _, item := range items {
			role := strings.TrimPrefix(item.GetName(), extensionRolePrefix+p.v.Name+":")
			if !wanted[role] {
				p.add(projectControllerName, rbacv1.SchemeGroupVersion.String(), r.kind, r.namespace, item.GetName(), "delete",
					fmt.Sprintf("deletes the %s of the extension role %s, which no member has any more", r.kind, role))
			}
		}
	}
	return nil
}
