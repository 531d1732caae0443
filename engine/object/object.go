// Package object names Kubernetes objects the way the engine tracks them: by group, kind,
// namespace and name, independent of the API version they were written in, so that an object
// rendered as apps/v1 and listed as apps/v1beta2 is the same object.
package object

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Ref identifies one object. Namespace is empty for cluster-scoped objects.
type Ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RefOf returns the reference of an object.
func RefOf(u *unstructured.Unstructured) Ref {
	gvk := u.GroupVersionKind()
	return Ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// GroupKind is the reference's group and kind.
func (r Ref) GroupKind() schema.GroupKind { return schema.GroupKind{Group: r.Group, Kind: r.Kind} }

// String renders the reference as "Kind.group namespace/name" ("Deployment.apps garden/etcd-druid",
// "Namespace garden"), the form plans and errors print.
func (r Ref) String() string {
	var b strings.Builder
	b.WriteString(r.Kind)
	if r.Group != "" {
		b.WriteString(".")
		b.WriteString(r.Group)
	}
	b.WriteString(" ")
	if r.Namespace != "" {
		b.WriteString(r.Namespace)
		b.WriteString("/")
	}
	b.WriteString(r.Name)
	return b.String()
}

// HiddenValue stands in for a sensitive value, map key, name or namespace wherever gardener prints
// one: plans, the state as printed, messages.
const HiddenValue = "(sensitive value)"

// Hidden is r with the parts that which names replaced by HiddenValue: "name", "namespace" or
// "name,namespace", as the annotation declarative-gardener.io/sensitive-identity and the state
// record which parts of a reference depend on a sensitive value.
func (r Ref) Hidden(which string) Ref {
	for _, part := range strings.Split(which, ",") {
		switch part {
		case "name":
			r.Name = HiddenValue
		case "namespace":
			r.Namespace = HiddenValue
		}
	}
	return r
}

// Less orders references by group, kind, namespace and name: the order plans list objects in
// when no other order applies.
func (r Ref) Less(o Ref) bool {
	if r.Group != o.Group {
		return r.Group < o.Group
	}
	if r.Kind != o.Kind {
		return r.Kind < o.Kind
	}
	if r.Namespace != o.Namespace {
		return r.Namespace < o.Namespace
	}
	return r.Name < o.Name
}

// GroupKindString renders a GroupKind as "Kind.group", or "Kind" for the core group.
func GroupKindString(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return fmt.Sprintf("%s.%s", gk.Kind, gk.Group)
}

// SortGroupKinds sorts kinds by group, then kind: the order in which kinds are listed and
// recorded, so that requests and files are the same on every run.
func SortGroupKinds(kinds []schema.GroupKind) {
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].Group != kinds[j].Group {
			return kinds[i].Group < kinds[j].Group
		}
		return kinds[i].Kind < kinds[j].Kind
	})
}
