package diff

import (
	"sort"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// ownsExactly reports whether a FieldsV1 tree (our managedFields entry) holds exactly the fields
// applying cfg would record for us: structured-merge-diff's ToFieldSet of cfg, without status
// and the metadata the server strips. It walks both side by side instead of building and
// comparing two sets, which is most of the cost of a no-op diff.
func ownsExactly(sc *smdschema.Schema, tr smdschema.TypeRef, tree map[string]any, cfg map[string]any) bool {
	w := ownWalk{sc: sc}
	return w.node(tree, true, cfg, tr, false, rootStrip)
}

// Keys never recorded at the root (apiVersion, kind, status) and in metadata (the stripSet).
var (
	rootStrip     = map[string]bool{"apiVersion": true, "kind": true, "status": true}
	metadataStrip = map[string]bool{
		"name": true, "namespace": true, "creationTimestamp": true, "selfLink": true, "uid": true,
		"clusterName": true, "generation": true, "managedFields": true, "resourceVersion": true,
	}
)

type ownWalk struct {
	sc  *smdschema.Schema
	buf []byte
}

// node compares one tree node (present false: absent) with the fields value v of type tr
// records: the node's membership and its children.
func (w *ownWalk) node(tree map[string]any, present bool, v any, tr smdschema.TypeRef, member bool, strip map[string]bool) bool {
	n, ok := w.children(tree, v, tr, strip)
	if !ok {
		return false
	}
	if !present {
		return n == 0 && !member
	}
	understood := understoodChildren(tree)
	_, dot := tree["."]
	actualMember := dot || understood == 0
	return actualMember == member && understood == n
}

// children matches the child fields v records against tree and returns how many there are.
func (w *ownWalk) children(tree map[string]any, v any, tr smdschema.TypeRef, strip map[string]bool) (int, bool) {
	atom, ok := w.sc.Resolve(tr)
	if !ok {
		atom, _ = w.sc.Resolve(smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)})
	}
	switch x := v.(type) {
	case map[string]any:
		if atom.Map == nil || atom.Map.ElementRelationship == smdschema.Atomic {
			return 0, true
		}
		n := 0
		for k, cv := range x {
			if strip[k] {
				continue
			}
			ftr := atom.Map.ElementType
			f, declared := atom.Map.FindField(k)
			if declared {
				ftr = f.Type
			}
			member := !declared || cv == nil || isEmptyMap(cv) || w.isLeaf(cv, ftr)
			var childStrip map[string]bool
			if strip != nil && k == "metadata" {
				childStrip = metadataStrip
			}
			w.buf = append(append(w.buf[:0], "f:"...), k...)
			sub, present := tree[string(w.buf)]
			subTree, _ := sub.(map[string]any)
			if !w.node(subTree, present, cv, ftr, member, childStrip) {
				return 0, false
			}
			if present {
				n++
			}
		}
		return n, true
	case []any:
		if atom.List == nil || atom.List.ElementRelationship != smdschema.Associative {
			return 0, true
		}
		seen := make(map[string]bool, len(x))
		for _, item := range x {
			key, ok := w.itemKey(atom.List, item)
			if !ok || seen[key] {
				return 0, false // duplicates or keyless items: leave it to structured-merge-diff
			}
			seen[key] = true
			sub, present := tree[key]
			subTree, _ := sub.(map[string]any)
			if !present || !w.node(subTree, true, item, atom.List.ElementType, true, nil) {
				return 0, false
			}
		}
		return len(x), true
	}
	return 0, true
}

// isLeaf reports whether a value is recorded as one field: a scalar, or an atomic list or map.
func (w *ownWalk) isLeaf(v any, tr smdschema.TypeRef) bool {
	atom, ok := w.sc.Resolve(tr)
	if !ok {
		atom, _ = w.sc.Resolve(smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)})
	}
	switch v.(type) {
	case map[string]any:
		return atom.Map == nil || atom.Map.ElementRelationship == smdschema.Atomic
	case []any:
		return atom.List == nil || atom.List.ElementRelationship != smdschema.Associative
	}
	return true
}

// itemKey serializes a list item's path element the way managedFields spells it:
// `k:{"name":"web"}` for keyed lists (missing keys defaulted from the schema), `v:"x"` for sets.
func (w *ownWalk) itemKey(l *smdschema.List, item any) (string, bool) {
	var pe fieldpath.PathElement
	if len(l.Keys) == 0 {
		if _, isMap := item.(map[string]any); isMap || item == nil {
			return "", false
		}
		v := value.NewValueInterface(item)
		pe.Value = &v
	} else {
		m, ok := item.(map[string]any)
		if !ok {
			return "", false
		}
		var elem *smdschema.Map
		if a, ok := w.sc.Resolve(l.ElementType); ok {
			elem = a.Map
		}
		keys := make(value.FieldList, 0, len(l.Keys))
		for _, name := range l.Keys {
			kv, ok := m[name]
			if !ok && elem != nil {
				if f, found := elem.FindField(name); found && f.Default != nil {
					kv, ok = f.Default, true
				}
			}
			if ok {
				keys = append(keys, value.Field{Name: name, Value: value.NewValueInterface(kv)})
			}
		}
		if len(keys) == 0 {
			return "", false
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
		pe.Key = &keys
	}
	s, err := fieldpath.SerializePathElement(pe)
	return s, err == nil
}

func isEmptyMap(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// understoodChildren counts a tree node's children other than the membership marker.
func understoodChildren(tree map[string]any) int {
	n := len(tree)
	if _, dot := tree["."]; dot {
		n--
	}
	return n
}
