package diff

import (
	"sort"
	"strings"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// rawChange is a change before rendering: its path as steps, so that immutability and Go-type
// normalisation can inspect it.
type rawChange struct {
	path     fieldPath
	old, new any
}

// comparer walks two versions of an object along its schema and reports the narrowest paths
// whose values differ: a leaf, or a whole subtree present on one side only. Keyed list items are
// matched by key (their order is not a change), set-like lists by value, atomic lists by index.
type comparer struct {
	sc      *smdschema.Schema
	path    fieldPath // the current path; copied when a change is recorded
	changes []rawChange
	// onChange, when set, receives each change instead of changes, with the current path, which
	// it must not keep: for callers that render the path at once.
	onChange func(path fieldPath, old, new any)
	// firstOnly stops at the first difference: the comparer then only answers "equal?".
	firstOnly bool
	// expand reports a subtree present only on the new side leaf by leaf instead of whole: the
	// fields of an object to be created.
	expand bool
}

// added reports a value present only on the new side: whole, or with expand leaf by leaf.
func (c *comparer) added(v any, tr smdschema.TypeRef) {
	if c.expand {
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				c.value(map[string]any{}, x, tr)
				return
			}
		case []any:
			if len(x) > 0 {
				c.value([]any{}, x, tr)
				return
			}
		}
	}
	c.report(nil, v)
}

func (c *comparer) report(old, new any) {
	if c.onChange != nil {
		c.onChange(c.path, old, new)
		return
	}
	c.changes = append(c.changes, rawChange{path: append(fieldPath(nil), c.path...), old: old, new: new})
}

func (c *comparer) done() bool { return c.firstOnly && len(c.changes) > 0 }

// value compares two present values of type tr.
func (c *comparer) value(old, new any, tr smdschema.TypeRef) {
	if c.done() {
		return
	}
	atom, ok := c.sc.Resolve(tr)
	if !ok {
		atom, _ = c.sc.Resolve(smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)})
	}
	om, oldIsMap := old.(map[string]any)
	nm, newIsMap := new.(map[string]any)
	if oldIsMap && newIsMap && atom.Map != nil {
		c.maps(om, nm, atom.Map, tr)
		return
	}
	ol, oldIsList := old.([]any)
	nl, newIsList := new.([]any)
	if oldIsList && newIsList && atom.List != nil {
		c.lists(ol, nl, atom.List)
		return
	}
	if oldIsMap || newIsMap || oldIsList || newIsList {
		// Shapes differ, or a schema-less composite: compare as a whole.
		if !deepEqual(old, new) {
			c.report(old, new)
		}
		return
	}
	if !scalarEqual(old, new, tr) {
		c.report(old, new)
	}
}

func (c *comparer) maps(old, new map[string]any, m *smdschema.Map, tr smdschema.TypeRef) {
	keyed := isMapKeyed(m)
	keys := UnionKeys(old, new)
	for _, k := range keys {
		if c.done() {
			return
		}
		ov, inOld := old[k]
		nv, inNew := new[k]
		ftr := m.ElementType
		kind := stepField
		f, isField := m.FindField(k)
		if isField {
			ftr = f.Type
		} else if keyed {
			kind = stepMapKey
		}
		c.path = append(c.path, step{kind: kind, name: k})
		switch {
		case inOld && inNew:
			c.value(ov, nv, ftr)
		case inOld:
			// A removed field with a default comes back with it.
			if d, ok := fieldDefault(f, isField, tr, k, new); ok {
				c.value(ov, d, ftr)
			} else {
				c.report(ov, nil)
			}
		default:
			c.added(nv, ftr)
		}
		c.path = c.path[:len(c.path)-1]
	}
}

func (c *comparer) lists(old, new []any, l *smdschema.List) {
	switch {
	case l.ElementRelationship == smdschema.Associative && len(l.Keys) > 0:
		c.keyedList(old, new, l)
	case l.ElementRelationship == smdschema.Associative:
		c.setList(old, new)
	default:
		c.atomicList(old, new, l)
	}
}

func (c *comparer) keyedList(old, new []any, l *smdschema.List) {
	oldKeys, okOld := c.itemKeys(old, l)
	newKeys, okNew := c.itemKeys(new, l)
	if !okOld || !okNew {
		// Duplicate or keyless items (tolerated in stored objects): compare the list whole.
		if !deepEqual(old, new) {
			c.report(old, new)
		}
		return
	}
	oldIndex := make(map[string]int, len(old))
	for i, k := range oldKeys {
		oldIndex[k] = i
	}
	newIndex := make(map[string]int, len(new))
	for i, k := range newKeys {
		newIndex[k] = i
	}
	keys := append([]string(nil), oldKeys...)
	for _, k := range newKeys {
		if _, ok := oldIndex[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c.done() {
			return
		}
		oi, inOld := oldIndex[k]
		ni, inNew := newIndex[k]
		c.path = append(c.path, step{kind: stepListKey, name: k})
		switch {
		case inOld && inNew:
			c.value(old[oi], new[ni], l.ElementType)
		case inOld:
			c.report(old[oi], nil)
		default:
			c.added(new[ni], l.ElementType)
		}
		c.path = c.path[:len(c.path)-1]
	}
}

// itemKeys renders the key of every item of a keyed list, using the schema's default for a
// missing key field as structured-merge-diff does. It fails on non-object items and duplicates.
func (c *comparer) itemKeys(items []any, l *smdschema.List) ([]string, bool) {
	names := l.Keys
	if !sort.StringsAreSorted(names) {
		names = append([]string(nil), names...)
		sort.Strings(names)
	}
	var elem *smdschema.Map
	if a, ok := c.sc.Resolve(l.ElementType); ok {
		elem = a.Map
	}
	keys := make([]string, len(items))
	seen := make(map[string]bool, len(items))
	var b strings.Builder
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		b.Reset()
		for _, name := range names {
			v, ok := m[name]
			if !ok && elem != nil {
				if f, found := elem.FindField(name); found && f.Default != nil {
					v, ok = f.Default, true
				}
			}
			if !ok {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(name)
			b.WriteByte('=')
			b.WriteString(RenderScalar(v))
		}
		k := b.String()
		if seen[k] {
			return nil, false
		}
		seen[k] = true
		keys[i] = k
	}
	return keys, true
}

func (c *comparer) setList(old, new []any) {
	oldSet := make(map[string]any, len(old))
	for _, v := range old {
		oldSet[RenderScalar(v)] = v
	}
	newSet := make(map[string]any, len(new))
	for _, v := range new {
		newSet[RenderScalar(v)] = v
	}
	for _, k := range UnionKeys(oldSet, newSet) {
		ov, inOld := oldSet[k]
		nv, inNew := newSet[k]
		if inOld == inNew || c.done() {
			continue
		}
		c.path = append(c.path, step{kind: stepSetItem, name: k})
		if inOld {
			c.report(ov, nil)
		} else {
			c.report(nil, nv)
		}
		c.path = c.path[:len(c.path)-1]
	}
}

func (c *comparer) atomicList(old, new []any, l *smdschema.List) {
	n := max(len(old), len(new))
	for i := 0; i < n && !c.done(); i++ {
		c.path = append(c.path, step{kind: stepIndex, index: i})
		switch {
		case i < len(old) && i < len(new):
			c.value(old[i], new[i], l.ElementType)
		case i < len(old):
			c.report(old[i], nil)
		default:
			c.added(new[i], l.ElementType)
		}
		c.path = c.path[:len(c.path)-1]
	}
}

// UnionKeys returns the keys of either map, sorted: the order in which a comparison of two
// decoded objects visits their fields (or two sets their members), here and in the plan's
// listing of a ManagedResource's contents, so that changes are reported in one stable order.
func UnionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// fieldDefault is the value the server defaults a missing field of a map to: a built-in default
// of the map's type, or else the schema's default (custom resources' defaults, and the {} the
// built-in schemas give non-pointer struct fields, which Go always encodes).
func fieldDefault(f smdschema.StructField, isField bool, parent smdschema.TypeRef, name string, newParent map[string]any) (any, bool) {
	if parent.NamedType != nil {
		if d, ok := builtinDefaults[*parent.NamedType][name]; ok {
			return d(newParent)
		}
	}
	if isField && f.Default != nil {
		return f.Default, true
	}
	return nil, false
}
