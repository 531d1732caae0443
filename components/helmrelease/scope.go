package helmrelease

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// scopes knows whether a kind is namespaced: built-in kinds from the lists above, custom kinds
// from the CustomResourceDefinitions the chart renders itself.
type scopes struct {
	custom map[schema.GroupKind]bool // namespaced, by group/kind
}

// newScopes collects the scopes of the CRDs among objs.
func newScopes(objs []*unstructured.Unstructured) scopes {
	s := scopes{custom: map[schema.GroupKind]bool{}}
	for _, o := range objs {
		if d, ok := crdOf(o); ok {
			s.custom[schema.GroupKind{Group: d.group, Kind: d.kind}] = d.namespaced
		}
	}
	return s
}

// namespaced reports whether objects of gvk are known to live in a namespace. Kinds of unknown
// scope report false: the engine places them in the release namespace once discovery says so.
func (s scopes) namespaced(gvk schema.GroupVersionKind) bool {
	if kinds.BuiltinClusterScoped(gvk.GroupKind()) {
		return false
	}
	if ns, ok := s.custom[gvk.GroupKind()]; ok {
		return ns
	}
	return clientgoscheme.Scheme.Recognizes(gvk)
}

// crd is what a CustomResourceDefinition tells about its kind.
type crd struct {
	group, kind string
	versions    []string
	namespaced  bool
}

// crdOf reads a CustomResourceDefinition object; ok is false for other objects.
func crdOf(o *unstructured.Unstructured) (crd, bool) {
	gvk := o.GroupVersionKind()
	if gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" {
		return crd{}, false
	}
	var d crd
	d.group, _, _ = unstructured.NestedString(o.Object, "spec", "group")
	d.kind, _, _ = unstructured.NestedString(o.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
	d.namespaced = scope != "Cluster"
	versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
	for _, v := range versions {
		if vm, ok := v.(map[string]any); ok {
			if name, ok := vm["name"].(string); ok && name != "" {
				d.versions = append(d.versions, name)
			}
		}
	}
	return d, d.group != "" && d.kind != ""
}
