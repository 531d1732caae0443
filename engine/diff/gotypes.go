package diff

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// The API server stores a built-in object by decoding it into its Go type and encoding it again.
// That round trip drops empty values of omitempty fields (readOnly: false, args: [], labels: {})
// and canonicalises quantities and timestamps. Rather than round-trip whole objects on every
// diff, the differ round-trips only the old and new value of each candidate change through the
// Go type of its field, and drops changes that vanish. Kinds without Go types here (custom
// resources) are stored as written and need no normalisation.

var goScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err) // static registration; cannot fail
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// goRootType returns the Go struct type of a built-in kind.
func goRootType(gvk schema.GroupVersionKind) (reflect.Type, bool) {
	t, ok := goScheme.AllKnownTypes()[gvk]
	return t, ok
}

// goField is the Go type at a path and how encoding/json treats its absence.
type goField struct {
	t                   reflect.Type
	omitEmpty, omitZero bool
}

type goFieldKey struct {
	t    reflect.Type
	name string
}

// goFields caches struct field lookups by JSON name.
var goFields sync.Map // goFieldKey -> goField (t nil when absent)

// resolveGo follows a path through Go types.
func resolveGo(root reflect.Type, path fieldPath) (goField, bool) {
	f := goField{t: root}
	for _, s := range path {
		t := f.t
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch s.kind {
		case stepField:
			if t.Kind() == reflect.Map {
				f = goField{t: t.Elem()}
				continue
			}
			if t.Kind() != reflect.Struct {
				return goField{}, false
			}
			next, ok := structField(t, s.name)
			if !ok {
				return goField{}, false
			}
			f = next
		case stepMapKey:
			if t.Kind() != reflect.Map {
				return goField{}, false
			}
			f = goField{t: t.Elem()}
		default:
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return goField{}, false
			}
			f = goField{t: t.Elem()}
		}
	}
	return f, true
}

func structField(t reflect.Type, name string) (goField, bool) {
	key := goFieldKey{t: t, name: name}
	if v, ok := goFields.Load(key); ok {
		f := v.(goField)
		return f, f.t != nil
	}
	f, _ := findStructField(t, name)
	goFields.Store(key, f)
	return f, f.t != nil
}

func findStructField(t reflect.Type, name string) (goField, bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		tagName, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,") || (sf.Anonymous && tagName == "")
		if inline {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if f, ok := findStructField(et, name); ok {
					return f, true
				}
			}
			continue
		}
		if tagName == "" {
			tagName = sf.Name
		}
		if tagName == name {
			o := "," + opts + ","
			return goField{t: sf.Type, omitEmpty: strings.Contains(o, ",omitempty,"), omitZero: strings.Contains(o, ",omitzero,")}, true
		}
	}
	return goField{}, false
}

// goNormalise returns a value as the API server would store it in a field of type f: decoded
// into the Go type and encoded again, or nil when encoding would omit it. ok is false when the
// value does not decode (the server would reject it; the change is kept as is).
func goNormalise(v any, f goField) (any, bool) {
	if v == nil {
		return nil, true
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	ptr := reflect.New(f.t)
	if err := json.Unmarshal(data, ptr.Interface()); err != nil {
		return nil, false
	}
	ev := ptr.Elem()
	if (f.omitEmpty && isEmptyValue(ev)) || (f.omitZero && ev.IsZero()) {
		return nil, true
	}
	data, err = json.Marshal(ptr.Interface())
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, false
	}
	return out, true
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// vanishesInGo reports whether a change disappears once both values went through the Go type of
// its field: an omitted empty value, or a different spelling of the same value.
func vanishesInGo(root reflect.Type, ch rawChange) bool {
	f, ok := resolveGo(root, ch.path)
	if !ok {
		return false
	}
	old, okOld := goNormalise(ch.old, f)
	new, okNew := goNormalise(ch.new, f)
	return okOld && okNew && deepEqual(old, new)
}
