package diff

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// serverMetadata are the metadata fields the server maintains itself; they are never changes.
var serverMetadata = []string{
	"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink",
	"deletionTimestamp", "deletionGracePeriodSeconds",
}

// diffable returns the part of an object a diff compares: without status and without the
// metadata the server maintains.
func diffable(obj map[string]any) map[string]any {
	out := without(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		out["metadata"] = without(md, serverMetadata...)
	}
	return out
}

// compareObjects returns the changes between two versions of an object.
func compareObjects(sc *smdschema.Schema, tr smdschema.TypeRef, old, new map[string]any) []rawChange {
	c := comparer{sc: sc}
	c.value(diffable(old), diffable(new), tr)
	return c.changes
}

// objectFields lists every field of an object of kind gvk as added, leaf by leaf, rendered as
// render renders a diff's changes. Each path is rendered as it is found rather than copied
// first: a full plan lists every field of every object it creates, and the copies were about a
// twenty-fifth of what it allocated.
func objectFields(gvk schema.GroupVersionKind, sc *smdschema.Schema, tr smdschema.TypeRef, obj map[string]any) []Change {
	var out []Change
	c := comparer{sc: sc, expand: true, onChange: func(p fieldPath, old, new any) {
		out = append(out, Change{Path: p.String(), Old: old, New: new, Sensitive: sensitive(gvk, p)})
	}}
	c.value(map[string]any{}, diffable(obj), tr)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// equalValues reports whether two values of type tr are semantically equal.
func equalValues(sc *smdschema.Schema, tr smdschema.TypeRef, a, b any) bool {
	c := comparer{sc: sc, firstOnly: true}
	c.value(a, b, tr)
	return len(c.changes) == 0
}

// covers reports whether applying cfg over live leaves live's values as they are: every field cfg
// sets has the same value in live, and every atomic value cfg sets (atomic lists and maps) is
// equal as a whole.
func covers(sc *smdschema.Schema, tr smdschema.TypeRef, live, cfg any) bool {
	atom, ok := sc.Resolve(tr)
	if !ok {
		atom, _ = sc.Resolve(smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)})
	}
	switch c := cfg.(type) {
	case nil:
		return false
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok || atom.Map == nil {
			return false
		}
		if atom.Map.ElementRelationship == smdschema.Atomic {
			return equalValues(sc, tr, live, cfg)
		}
		for k, cv := range c {
			lv, ok := l[k]
			if !ok {
				return false
			}
			ftr := atom.Map.ElementType
			if f, found := atom.Map.FindField(k); found {
				ftr = f.Type
			}
			if !covers(sc, ftr, lv, cv) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok || atom.List == nil {
			return false
		}
		list := atom.List
		if list.ElementRelationship != smdschema.Associative {
			return equalValues(sc, tr, live, cfg)
		}
		if len(list.Keys) == 0 {
			have := make(map[string]bool, len(l))
			for _, v := range l {
				have[RenderScalar(v)] = true
			}
			for _, v := range c {
				if !have[RenderScalar(v)] {
					return false
				}
			}
			return true
		}
		cmp := comparer{sc: sc}
		liveKeys, ok := cmp.itemKeys(l, list)
		if !ok {
			return false
		}
		cfgKeys, ok := cmp.itemKeys(c, list)
		if !ok {
			return false
		}
		index := make(map[string]int, len(liveKeys))
		for i, k := range liveKeys {
			index[k] = i
		}
		for i, k := range cfgKeys {
			j, ok := index[k]
			if !ok || !covers(sc, list.ElementType, l[j], c[i]) {
				return false
			}
		}
		return true
	default:
		if _, isMap := live.(map[string]any); isMap {
			return false
		}
		if _, isList := live.([]any); isList {
			return false
		}
		return scalarEqual(live, cfg, tr)
	}
}
