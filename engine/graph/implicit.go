package graph

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
)

// crdGroupKind is the GroupKind of CustomResourceDefinitions.
var crdGroupKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// namespaceGroupKind is the GroupKind of Namespaces (the core group).
var namespaceGroupKind = schema.GroupKind{Kind: "Namespace"}

// ImplicitEdges derives the edges rendering reveals and references cannot: a component that
// renders custom resources depends on every other component that renders their
// CustomResourceDefinition (the API server rejects a custom resource before its CRD is
// established), a component that renders namespaced objects depends on every other
// component that renders their Namespace, and a component that renders a Gardener Seed, Shoot or
// BackupBucket depends on every other component that renders a ControllerRegistration of an
// extension type it uses (gardener-apiserver refuses it before, see registrationEdges). A
// component's objects among themselves are ordered by apply, not by the graph, so no edge leads
// from a component to itself.
//
// rendered maps each instance to its objects. Names are compared within one map, so objects of
// different clusters must be passed in separate calls (a Namespace "garden" in the runtime
// cluster says nothing about the virtual garden). The edges are sorted and free of duplicates:
// one per (From, To, GroupKind or Namespace).
func ImplicitEdges(rendered map[config.InstanceAddress][]*unstructured.Unstructured) []Edge {
	crds := map[schema.GroupKind][]config.InstanceAddress{}
	namespaces := map[string][]config.InstanceAddress{}
	for inst, objs := range rendered {
		for _, o := range objs {
			switch o.GroupVersionKind().GroupKind() {
			case crdGroupKind:
				group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
				kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
				if kind != "" {
					gk := schema.GroupKind{Group: group, Kind: kind}
					crds[gk] = appendOnce(crds[gk], inst)
				}
			case namespaceGroupKind:
				if o.GetName() != "" {
					namespaces[o.GetName()] = appendOnce(namespaces[o.GetName()], inst)
				}
			}
		}
	}
	seen := map[Edge]bool{}
	var edges []Edge
	add := func(from config.InstanceAddress, to []config.InstanceAddress, reason string) {
		for _, t := range to {
			e := Edge{From: from, To: t, Reason: reason, Kind: Implicit}
			if t != from && !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	for inst, objs := range rendered {
		for _, o := range objs {
			gk := o.GroupVersionKind().GroupKind()
			if providers, ok := crds[gk]; ok {
				add(inst, providers, fmt.Sprintf("its %s objects need their CustomResourceDefinition", gk))
			}
			if ns := o.GetNamespace(); ns != "" {
				if providers, ok := namespaces[ns]; ok {
					add(inst, providers, fmt.Sprintf("its objects in namespace %q need the Namespace", ns))
				}
			}
		}
	}
	for _, e := range registrationEdges(rendered) {
		if !seen[e] {
			seen[e] = true
			edges = append(edges, e)
		}
	}
	slices.SortFunc(edges, compareEdge)
	return edges
}

func appendOnce(s []config.InstanceAddress, a config.InstanceAddress) []config.InstanceAddress {
	if slices.Contains(s, a) {
		return s
	}
	return append(s, a)
}
