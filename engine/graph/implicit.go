package graph

import (
	"cmp"
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
// cluster says nothing about the virtual garden). The edges are sorted by their ends and reasons
// as text and free of duplicates: one per (From, To, GroupKind or Namespace).
func ImplicitEdges(rendered map[config.InstanceAddress][]*unstructured.Unstructured) []Edge {
	// One pass reads each object's kind and namespace once: what it provides (CRDs, Namespaces,
	// registrations) and, per instance, the distinct kinds and namespaces it needs, which are
	// far fewer than its objects.
	crds := map[schema.GroupKind][]config.InstanceAddress{}
	namespaces := map[string][]config.InstanceAddress{}
	registrations := map[extensionType][]registered{}
	type need struct {
		kind schema.GroupKind
		ns   string
	}
	needs := make(map[config.InstanceAddress][]need, len(rendered))
	var admitted []admittedObject
	seenNeed := map[need]bool{}
	for inst, objs := range rendered {
		clear(seenNeed)
		var ns []need
		for _, o := range objs {
			gk := o.GroupVersionKind().GroupKind()
			switch gk {
			case crdGroupKind:
				group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
				kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
				if kind != "" {
					provided := schema.GroupKind{Group: group, Kind: kind}
					crds[provided] = appendOnce(crds[provided], inst)
				}
			case namespaceGroupKind:
				if o.GetName() != "" {
					namespaces[o.GetName()] = appendOnce(namespaces[o.GetName()], inst)
				}
			case registrationGroupKind:
				for t, clusters := range registeredTypes(o) {
					registrations[t] = append(registrations[t], registered{inst: inst, name: o.GetName(), clusters: clusters})
				}
			case seedGroupKind, shootGroupKind, backupBucketGroupKind:
				admitted = append(admitted, admittedObject{inst: inst, object: o})
			}
			for _, n := range []need{{kind: gk}, {ns: o.GetNamespace()}} {
				if n != (need{}) && !seenNeed[n] {
					seenNeed[n] = true
					ns = append(ns, n)
				}
			}
		}
		needs[inst] = ns
	}

	// An instance's needs are distinct already, so each (from, to, reason) comes once; the
	// reasons are shared by every edge with the same cause (a shoot's parts all need its
	// namespace).
	reasons := map[need]string{}
	reason := func(n need) string {
		r, ok := reasons[n]
		if !ok {
			r = fmt.Sprintf("its %s objects need their CustomResourceDefinition", n.kind)
			if n.ns != "" {
				r = fmt.Sprintf("its objects in namespace %q need the Namespace", n.ns)
			}
			reasons[n] = r
		}
		return r
	}
	var edges []Edge
	for inst, ns := range needs {
		for _, n := range ns {
			providers := crds[n.kind]
			if n.ns != "" {
				providers = namespaces[n.ns]
			}
			for _, to := range providers {
				if to != inst {
					edges = append(edges, Edge{From: inst, To: to, Reason: reason(n), Kind: Implicit})
				}
			}
		}
	}
	edges = append(edges, registrationEdges(registrations, admitted)...)
	sortEdges(edges)
	return slices.CompactFunc(edges, func(a, b Edge) bool { return a == b })
}

// sortEdges sorts implicit edges by their ends and reasons as text: Build orders them itself, so
// this only makes the result the same on every run, at the cost of comparing strings.
func sortEdges(edges []Edge) {
	slices.SortFunc(edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Reason, b.Reason))
	})
}

func appendOnce(s []config.InstanceAddress, a config.InstanceAddress) []config.InstanceAddress {
	if slices.Contains(s, a) {
		return s
	}
	return append(s, a)
}
