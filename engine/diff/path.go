package diff

import (
	"strconv"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// stepKind is the kind of one element of a field path.
type stepKind uint8

const (
	stepField   stepKind = iota // a struct field: ".name"
	stepMapKey                  // a key of a map-typed field: "[key]"
	stepListKey                 // an item of a keyed list: "[name=etcd]"
	stepSetItem                 // a value of a set-like list: "[value]"
	stepIndex                   // an item of an atomic list: "[2]"
)

// step is one element of a field path. For stepListKey name holds the rendered keys
// ("port=80,protocol=TCP", sorted by key name as structured-merge-diff sorts them); for
// stepSetItem the rendered value.
type step struct {
	kind  stepKind
	name  string
	index int
}

// fieldPath is a path from the object's root.
type fieldPath []step

// String renders the path in the documented form (see Change.Path).
func (p fieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		switch s.kind {
		case stepField:
			b.WriteByte('.')
			b.WriteString(s.name)
		case stepIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		default:
			b.WriteByte('[')
			b.WriteString(s.name)
			b.WriteByte(']')
		}
	}
	return b.String()
}

// with returns the path extended by one step, never sharing the backing array with siblings.
func (p fieldPath) with(s step) fieldPath {
	out := make(fieldPath, len(p)+1)
	copy(out, p)
	out[len(p)] = s
	return out
}

// RenderScalar renders a key or set value the way paths show it: strings bare, numbers and
// booleans in JSON form.
func RenderScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return "null"
	default:
		return value.ToString(value.NewValueInterface(v))
	}
}

// isMapKeyed reports whether the keys of a map atom are rendered as map keys ("[key]") rather
// than field names: maps without declared fields whose values have a declared type (labels,
// annotations, data, resource lists). Objects that preserve unknown fields keep ".name".
func isMapKeyed(m *smdschema.Map) bool {
	if len(m.Fields) > 0 {
		return false
	}
	et := m.ElementType
	if et.NamedType != nil && *et.NamedType == deducedTypeName {
		return false
	}
	return et.NamedType != nil || et.Inlined != (smdschema.Atom{})
}

// deducedTypeName is the structured-merge-diff type of values whose shape is deduced at run time
// (x-kubernetes-preserve-unknown-fields).
const deducedTypeName = "__untyped_deduced_"

// formatSMDPath renders a structured-merge-diff path (from a conflict) in the documented form,
// resolving the schema along the way to tell struct fields from map keys.
func formatSMDPath(sc *smdschema.Schema, tr smdschema.TypeRef, p fieldpath.Path) string {
	var out fieldPath
	for _, pe := range p {
		atom, _ := sc.Resolve(tr)
		switch {
		case pe.FieldName != nil:
			kind := stepField
			next := smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)}
			if atom.Map != nil {
				if f, ok := atom.Map.FindField(*pe.FieldName); ok {
					next = f.Type
				} else {
					next = atom.Map.ElementType
					if isMapKeyed(atom.Map) {
						kind = stepMapKey
					}
				}
			}
			out = append(out, step{kind: kind, name: *pe.FieldName})
			tr = next
		case pe.Key != nil:
			parts := make([]string, 0, len(*pe.Key))
			for _, f := range *pe.Key {
				parts = append(parts, f.Name+"="+RenderScalar(f.Value.Unstructured()))
			}
			out = append(out, step{kind: stepListKey, name: strings.Join(parts, ",")})
			tr = listElem(atom)
		case pe.Value != nil:
			out = append(out, step{kind: stepSetItem, name: RenderScalar((*pe.Value).Unstructured())})
			tr = listElem(atom)
		case pe.Index != nil:
			out = append(out, step{kind: stepIndex, index: *pe.Index})
			tr = listElem(atom)
		}
	}
	return out.String()
}

func listElem(a smdschema.Atom) smdschema.TypeRef {
	if a.List != nil {
		return a.List.ElementType
	}
	return smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)}
}

func ptrTo[T any](v T) *T { return &v }
