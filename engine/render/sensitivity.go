package render

import (
	"maps"
	"slices"
)

// Sensitivity marks the parts of a rendered object that depend on sensitive values, by their
// place in the object rather than by their value: a number, a boolean, a map key or a string a
// render function transformed (upper-cased, hashed, templated by a Helm chart) cannot be
// recognised by its value, but its place can be. The engine finds the places by rendering an
// instance a second time with its sensitive values replaced (engine/rendering), and a component
// may mark places itself (Object.Sensitive); plans, saved plans, configuration hashes and error
// messages hide what it marks. A nil *Sensitivity marks nothing; its methods accept nil.
type Sensitivity struct {
	// Value marks the value at this place, and everything inside it, as sensitive; the keys of
	// the maps inside stay visible unless they are marked themselves.
	Value bool `json:"value,omitempty"`
	// Key marks the key under which this value stands in its map as sensitive (the value too).
	Key bool `json:"key,omitempty"`
	// Elements marks every value directly inside this map or list as sensitive, its keys not:
	// the data of a ConfigMap whose values a Helm chart computed from sensitive values.
	Elements bool `json:"elements,omitempty"`
	// Fields are the places inside a map, by key; Items inside a list, by index.
	Fields map[string]*Sensitivity `json:"fields,omitempty"`
	Items  map[int]*Sensitivity    `json:"items,omitempty"`
	// Doc marks places inside a string that holds a YAML document, as decoded: an object a
	// ManagedResource's Secret packs.
	Doc *Sensitivity `json:"doc,omitempty"`
	// Strings are, on an object's root, the parts of its strings (values, keys and names) that
	// depend on sensitive values, as they are: what messages about the object must not quote.
	Strings []string `json:"strings,omitempty"`
}

// Field returns the place under key k of a map, nil when nothing there is marked. Inside a
// Value or under Elements the child is a whole Value.
func (s *Sensitivity) Field(k string) *Sensitivity {
	if s == nil {
		return nil
	}
	if s.Value || s.Elements {
		if f := s.Fields[k]; f != nil {
			return &Sensitivity{Value: true, Key: f.Key, Fields: f.Fields, Items: f.Items, Doc: f.Doc}
		}
		return &Sensitivity{Value: true}
	}
	return s.Fields[k]
}

// Item returns the place at index i of a list, like Field.
func (s *Sensitivity) Item(i int) *Sensitivity {
	if s == nil {
		return nil
	}
	if s.Value || s.Elements {
		if it := s.Items[i]; it != nil {
			return &Sensitivity{Value: true, Key: it.Key, Fields: it.Fields, Items: it.Items, Doc: it.Doc}
		}
		return &Sensitivity{Value: true}
	}
	return s.Items[i]
}

// Any reports whether anything at or below this place is marked.
func (s *Sensitivity) Any() bool {
	if s == nil {
		return false
	}
	if s.Value || s.Key || s.Elements || s.Doc.Any() {
		return true
	}
	for _, f := range s.Fields {
		if f.Any() {
			return true
		}
	}
	for _, it := range s.Items {
		if it.Any() {
			return true
		}
	}
	return false
}

// HasSensitiveKeys reports whether a key directly inside this map is marked: a key the place
// does not know (one the live object has and the rendered one does not) may then be an earlier
// sensitive key.
func (s *Sensitivity) HasSensitiveKeys() bool {
	if s == nil {
		return false
	}
	for _, f := range s.Fields {
		if f.Key {
			return true
		}
	}
	return false
}

// Path returns the place at a path of map keys (strings) and list indexes (ints), or nil.
func (s *Sensitivity) Path(steps ...any) *Sensitivity {
	for _, st := range steps {
		switch st := st.(type) {
		case string:
			s = s.Field(st)
		case int:
			s = s.Item(st)
		default:
			return nil
		}
	}
	return s
}

// Mark marks the place at a path of map keys and list indexes with fn, creating the places on
// the way, and returns s (a new Sensitivity when s is nil).
func (s *Sensitivity) Mark(fn func(*Sensitivity), steps ...any) *Sensitivity {
	if s == nil {
		s = &Sensitivity{}
	}
	cur := s
	for _, st := range steps {
		switch st := st.(type) {
		case string:
			if cur.Fields == nil {
				cur.Fields = map[string]*Sensitivity{}
			}
			if cur.Fields[st] == nil {
				cur.Fields[st] = &Sensitivity{}
			}
			cur = cur.Fields[st]
		case int:
			if cur.Items == nil {
				cur.Items = map[int]*Sensitivity{}
			}
			if cur.Items[st] == nil {
				cur.Items[st] = &Sensitivity{}
			}
			cur = cur.Items[st]
		}
	}
	fn(cur)
	return s
}

// MergeSensitivity combines two markings: a place is marked when either marks it. It returns
// nil when neither marks anything, and never changes a or b.
func MergeSensitivity(a, b *Sensitivity) *Sensitivity {
	if !a.Any() && len(stringsOf(a)) == 0 {
		return cloneSensitivity(b)
	}
	if !b.Any() && len(stringsOf(b)) == 0 {
		return cloneSensitivity(a)
	}
	out := &Sensitivity{
		Value: a.Value || b.Value, Key: a.Key || b.Key, Elements: a.Elements || b.Elements,
		Doc: MergeSensitivity(a.Doc, b.Doc),
	}
	for _, k := range slices.Sorted(maps.Keys(mergeKeys(a.Fields, b.Fields))) {
		if out.Fields == nil {
			out.Fields = map[string]*Sensitivity{}
		}
		out.Fields[k] = MergeSensitivity(a.Fields[k], b.Fields[k])
	}
	for _, i := range slices.Sorted(maps.Keys(mergeKeys(a.Items, b.Items))) {
		if out.Items == nil {
			out.Items = map[int]*Sensitivity{}
		}
		out.Items[i] = MergeSensitivity(a.Items[i], b.Items[i])
	}
	seen := map[string]bool{}
	for _, s := range append(slices.Clone(a.Strings), b.Strings...) {
		if !seen[s] {
			seen[s] = true
			out.Strings = append(out.Strings, s)
		}
	}
	return out
}

func stringsOf(s *Sensitivity) []string {
	if s == nil {
		return nil
	}
	return s.Strings
}

func mergeKeys[K comparable](a, b map[K]*Sensitivity) map[K]bool {
	out := map[K]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func cloneSensitivity(s *Sensitivity) *Sensitivity {
	if s == nil {
		return nil
	}
	out := *s
	out.Strings = slices.Clone(s.Strings)
	out.Doc = cloneSensitivity(s.Doc)
	if s.Fields != nil {
		out.Fields = make(map[string]*Sensitivity, len(s.Fields))
		for k, f := range s.Fields {
			out.Fields[k] = cloneSensitivity(f)
		}
	}
	if s.Items != nil {
		out.Items = make(map[int]*Sensitivity, len(s.Items))
		for i, it := range s.Items {
			out.Items[i] = cloneSensitivity(it)
		}
	}
	return &out
}

// ValuesOnly marks every value of an object as sensitive but its identity (apiVersion, kind,
// name and namespace) and its map keys: what is left when a rendering cannot be traced.
func ValuesOnly(obj map[string]any) *Sensitivity {
	s := &Sensitivity{Fields: map[string]*Sensitivity{}}
	for k := range obj {
		switch k {
		case "apiVersion", "kind":
		case "metadata":
			md, _ := obj[k].(map[string]any)
			m := &Sensitivity{Fields: map[string]*Sensitivity{}}
			for mk := range md {
				if mk != "name" && mk != "namespace" {
					m.Fields[mk] = &Sensitivity{Value: true}
				}
			}
			s.Fields[k] = m
		default:
			s.Fields[k] = &Sensitivity{Value: true}
		}
	}
	return s
}
