package admission

import (
	"github.com/zclconf/go-cty/cty"
)

// obj reads a decoded block body (an object value) the way the rules need it: a value is usable
// only when it is known, not null and not marked (sensitive values are never judged, so they are
// never quoted back); everything else reads as "not known", and a rule that needs it reports
// nothing. Reading never panics, whatever the value's type.
type obj struct{ v cty.Value }

// attr returns the attribute's value, or a null value when v is not a known object with it.
func (o obj) attr(name string) cty.Value {
	v := o.v
	if v == cty.NilVal || !v.IsKnown() || v.IsNull() || v.IsMarked() || !v.Type().IsObjectType() || !v.Type().HasAttribute(name) {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return v.GetAttr(name)
}

// known reports whether the object itself can be read.
func (o obj) known() bool {
	return o.v != cty.NilVal && o.v.IsKnown() && !o.v.IsNull() && !o.v.IsMarked() && o.v.Type().IsObjectType()
}

// str returns a string attribute; set is false when it is null (not written, no default), ok is
// false when it cannot be read (unknown, marked, or the object is not known).
func (o obj) str(name string) (s string, set, ok bool) {
	if !o.known() {
		return "", false, false
	}
	v := o.attr(name)
	switch {
	case v.IsNull():
		return "", false, true
	case !v.IsKnown() || v.IsMarked() || !v.Type().Equals(cty.String):
		return "", false, false
	}
	return v.AsString(), true, true
}

// boolean returns a bool attribute, def when it is null; ok is false when it cannot be read.
func (o obj) boolean(name string, def bool) (b, ok bool) {
	if !o.known() {
		return false, false
	}
	v := o.attr(name)
	switch {
	case v.IsNull():
		return def, true
	case !v.IsKnown() || v.IsMarked() || !v.Type().Equals(cty.Bool):
		return false, false
	}
	return v.True(), true
}

// strings returns a list of strings; ok is false when the list or an element cannot be read.
func (o obj) strings(name string) ([]string, bool) {
	if !o.known() {
		return nil, false
	}
	v := o.attr(name)
	if v.IsNull() {
		return nil, true
	}
	if !v.IsWhollyKnown() || v.IsMarked() || !(v.Type().IsListType() || v.Type().IsSetType() || v.Type().IsTupleType()) {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.IsMarked() || !e.Type().Equals(cty.String) {
			return nil, false
		}
		out = append(out, e.AsString())
	}
	return out, true
}

// block returns a single nested block; set is false when it is absent, ok false when unknown.
func (o obj) block(name string) (b obj, set, ok bool) {
	if !o.known() {
		return obj{}, false, false
	}
	v := o.attr(name)
	switch {
	case v.IsNull():
		return obj{}, false, true
	case !v.IsKnown() || v.IsMarked():
		return obj{}, false, false
	}
	return obj{v}, true, true
}

// blocks returns the repeated nested blocks of a type in source order; ok is false when their
// number is not known.
func (o obj) blocks(name string) ([]obj, bool) {
	if !o.known() {
		return nil, false
	}
	v := o.attr(name)
	if v.IsNull() {
		return nil, true
	}
	if !v.IsKnown() || v.IsMarked() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		return nil, false
	}
	var out []obj
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, obj{e})
	}
	return out, true
}

// path builds an attribute path from names and indices: path("workers", 1, "machine_type").
func path(steps ...any) cty.Path {
	var p cty.Path
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			p = p.GetAttr(s)
		case int:
			p = p.IndexInt(s)
		}
	}
	return p
}
