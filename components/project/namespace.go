package project

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The annotations the project controller keeps on a project namespace
// (pkg/apis/core/v1beta1/constants/types_constants.go at Gardener v1.120.0, used by
// pkg/controllermanager/controller/project/project/reconciler.go).
const (
	// AnnotationNamespaceProject holds the uid of the Project the namespace belongs to.
	AnnotationNamespaceProject = "namespace.gardener.cloud/project"
	// AnnotationCreatedByProjectController marks a namespace the controller created; it
	// deletes such a namespace with the Project.
	AnnotationCreatedByProjectController = "namespace.gardener.cloud/created-by-project-controller"
	// AnnotationKeepAfterProjectDeletion marks a namespace the controller adopted: deleting the
	// Project only removes the project's labels, annotations and owner reference from it.
	AnnotationKeepAfterProjectDeletion = "namespace.gardener.cloud/keep-after-project-deletion"
)

// SkipStaleCheckAnnotation on the project namespace opts a project out of stale detection
// (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md).
const SkipStaleCheckAnnotation = "project.gardener.cloud/skip-stale-check"

// Stale is the project's part in the Stale Projects controller's check (Gardener's
// docs/concepts/controller-manager.md); its days are the controller manager's
// (projectcontroller.Settings).
type Stale struct {
	// Skip opts the project out, through the namespace annotation SkipStaleCheckAnnotation.
	Skip bool `json:"skip"`
}

// namespaceObject decides what the project renders of its namespace, which is the project
// controller's (reconcileNamespaceForProject in
// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0):
//
//   - no namespace yet: nothing. The controller creates it once the Project exists; a namespace
//     the landscape created first would be adopted instead, and adopted namespaces are kept when
//     the Project is deleted (keep-after-project-deletion). The stale check's opt-out waits for
//     the next apply (the notice says so).
//   - an existing namespace that is not the Project's yet (the landscape points the project at
//     it, or an earlier version of gardener created it): the two project labels, without which
//     the controller refuses it. An unlabelled namespace the landscape does not name explicitly
//     (namespace = ...) is refused instead of taken: it is someone else's that happens to be
//     called garden-<name>.
//   - the Project's namespace (created or adopted by the controller): nothing, or the opt-out.
//
// Where the namespace is rendered at all, it carries the project labels with the opt-out: a
// server-side apply removes the fields only the engine owns when it leaves them out, and on a
// namespace an earlier version created the engine alone owns the labels the controller demands.
// A namespace labelled for another project fails the plan, as it would fail the Project.
func namespaceObject(v Values, address string, l live) (*unstructured.Unstructured, string, error) {
	ns := NamespaceOf(v)
	skip := v.Stale != nil && v.Stale.Skip
	if l.namespace == nil {
		if skip {
			return nil, fmt.Sprintf("the namespace %s gets the annotation %s=true with the first apply after gardener-controller-manager created it; "+
				"written before, the namespace would be the landscape's and gardener-controller-manager would adopt it and keep it after the project's deletion", ns, SkipStaleCheckAnnotation), nil
		}
		return nil, "", nil
	}
	labels := l.namespace.GetLabels()
	if other := labels[LabelProjectName]; other != "" && other != v.Name {
		return nil, "", fmt.Errorf("project %s: the namespace %s belongs to project %s (label %s), so gardener-controller-manager would refuse it for this project; give the project another namespace", v.Name, ns, other, LabelProjectName)
	}
	labelled := labels[LabelRole] == LabelRoleProject && labels[LabelProjectName] == v.Name
	if !projectsNamespace(l.namespace, v.Name) {
		if !labelled && v.Namespace == "" && inventory.Component(l.namespace) != address {
			return nil, "", fmt.Errorf("project %s: the namespace %s exists without the labels %s=%s and %s=%s, so gardener-controller-manager would not adopt it for the project (Gardener's docs/concepts/controller-manager.md); "+
				"set namespace = %q in the project block if it is meant for the project (the plan then labels it), label it with kubectl label namespace %s %s=%s %s=%s, or give the project another namespace",
				v.Name, ns, LabelRole, LabelRoleProject, LabelProjectName, v.Name, ns, ns, LabelRole, LabelRoleProject, LabelProjectName, v.Name)
		}
		return namespace(v, skip), "", nil
	}
	switch {
	case skip:
		return namespace(v, true), "", nil
	case l.namespace.GetAnnotations()[SkipStaleCheckAnnotation] != "" && inventory.Component(l.namespace) == address:
		// The landscape wrote the opt-out and no longer wants it: an apply without the annotation
		// removes it, and the next plan releases the namespace.
		return namespace(v, false), "", nil
	}
	return nil, "", nil
}

// namespace is the project namespace as the component renders it: the project labels, and the
// stale check's opt-out when skip.
func namespace(v Values, skip bool) *unstructured.Unstructured {
	meta := metav1.ObjectMeta{Name: NamespaceOf(v), Labels: map[string]string{LabelRole: LabelRoleProject, LabelProjectName: v.Name}}
	if skip {
		meta.Annotations = map[string]string{SkipStaleCheckAnnotation: "true"}
	}
	u, _ := kube.ToUnstructured(&corev1.Namespace{ObjectMeta: meta}) // a typed Namespace always converts
	return u
}

// projectsNamespace reports whether the project controller has made the namespace the
// Project's: it created it or adopted it, and either way set the Project as its controller.
func projectsNamespace(ns *unstructured.Unstructured, project string) bool {
	if ns.GetAnnotations()[AnnotationCreatedByProjectController] == "true" {
		return true
	}
	owner := metav1.GetControllerOf(ns)
	return owner != nil && owner.Kind == Kind && owner.Name == project && owner.APIVersion == APIVersion
}

// handedOver names what earlier versions of gardener rendered for a project and
// gardener-controller-manager's project controller keeps now: the namespace, the members'
// ClusterRoles, ClusterRoleBindings and RoleBindings (projectrbac's names) and the ResourceQuota
// gardener. A plan of a landscape applied by such a version releases them to the controller
// instead of deleting them.
func handedOver(cluster, name, ns string) []render.Handover {
	p := regexp.QuoteMeta(name)
	handover := func(group, kind, namespace, pattern string) render.Handover {
		return render.Handover{Cluster: cluster, Group: group, Kind: kind, Namespace: namespace, Name: regexp.MustCompile(pattern), Controller: controllerManager}
	}
	clusterScoped := `^gardener\.cloud:(system:project(-member|-uam|-viewer)?:` + p + `|extension:project:` + p + `:.+)$`
	return []render.Handover{
		handover("", "Namespace", "", "^"+regexp.QuoteMeta(ns)+"$"),
		handover(rbacGroup, "ClusterRole", "", clusterScoped),
		handover(rbacGroup, "ClusterRoleBinding", "", clusterScoped),
		handover(rbacGroup, "RoleBinding", ns, `^gardener\.cloud:(system:project-(member|viewer|serviceaccountmanager)|extension:project:`+p+`:.+)$`),
		handover("", "ResourceQuota", ns, "^"+regexp.QuoteMeta(ResourceQuotaName)+"$"),
	}
}
