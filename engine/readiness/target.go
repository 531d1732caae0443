package readiness

import (
	"cmp"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Target names one object to wait for. The resource (not the kind) identifies it because that is
// what a dynamic client lists and watches; the executor already maps kinds to resources when it
// applies.
type Target struct {
	GVR       schema.GroupVersionResource
	Namespace string // empty for cluster-scoped objects
	Name      string
}

// String renders the target as `resource.group namespace/name`, the form used before its kind is
// known.
func (t Target) String() string {
	return joinNonEmpty(".", t.GVR.Resource, t.GVR.Group) + " " + t.objectName()
}

// objectName is `namespace/name`, or `name` for cluster-scoped objects.
func (t Target) objectName() string {
	if t.Namespace == "" {
		return t.Name
	}
	return t.Namespace + "/" + t.Name
}

// compareTargets orders targets by group, resource, namespace and name, so that every report lists
// them in the same order.
func compareTargets(a, b Target) int {
	return cmp.Or(
		cmp.Compare(a.GVR.Group, b.GVR.Group),
		cmp.Compare(a.GVR.Resource, b.GVR.Resource),
		cmp.Compare(a.GVR.Version, b.GVR.Version),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.Name, b.Name),
	)
}

// watchGroup is the unit of watching: all targets of one resource in one namespace share a LIST and
// a WATCH.
type watchGroup struct {
	GVR       schema.GroupVersionResource
	Namespace string
	Names     []string // sorted, unique
}

// groupTargets partitions targets into watch groups, sorted, dropping duplicates.
func groupTargets(targets []Target) []watchGroup {
	type key struct {
		gvr       schema.GroupVersionResource
		namespace string
	}
	byKey := map[key]map[string]bool{}
	for _, t := range targets {
		k := key{gvr: t.GVR, namespace: t.Namespace}
		if byKey[k] == nil {
			byKey[k] = map[string]bool{}
		}
		byKey[k][t.Name] = true
	}
	groups := make([]watchGroup, 0, len(byKey))
	for k, names := range byKey {
		g := watchGroup{GVR: k.gvr, Namespace: k.namespace}
		g.Names = slices.Sorted(maps.Keys(names))
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b watchGroup) int {
		return compareTargets(Target{GVR: a.GVR, Namespace: a.Namespace}, Target{GVR: b.GVR, Namespace: b.Namespace})
	})
	return groups
}

// target returns the group's target with the given name.
func (g watchGroup) target(name string) Target {
	return Target{GVR: g.GVR, Namespace: g.Namespace, Name: name}
}

func joinNonEmpty(sep string, parts ...string) string {
	out := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += sep
		}
		out += p
	}
	return out
}
