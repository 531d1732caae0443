package diff

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/openapi"
)

// condition decides whether a rule applies, from the values at the rule's path before and after
// the apply and the live object.
type condition func(old, new any, oldOK, newOK bool, live map[string]any) bool

// conditions are the functions of the table's conditions (kinds.Condition); kinds.Always has
// none.
var conditions = map[kinds.Condition]condition{
	kinds.WasSet:          wasSet,
	kinds.BothSet:         bothSet,
	kinds.LiveImmutable:   liveImmutable,
	kinds.LiveEstablished: liveEstablished,
}

// wasSet applies when the field had a non-empty value before: it may be added, but never
// changed or removed.
func wasSet(old, _ any, oldOK, _ bool, _ map[string]any) bool {
	return oldOK && !isEmptyScalar(old)
}

// bothSet applies when the field has a non-empty value before and after: setting a field the
// server would otherwise allocate (Service clusterIP) or a transition rule, which only runs when
// both values exist.
func bothSet(old, new any, oldOK, newOK bool, _ map[string]any) bool {
	return oldOK && newOK && !isEmptyScalar(old) && !isEmptyScalar(new)
}

// liveImmutable applies when the live object is marked immutable (ConfigMap, Secret).
func liveImmutable(_, _ any, _, _ bool, live map[string]any) bool {
	b, _ := live["immutable"].(bool)
	return b
}

// liveEstablished applies when the live CustomResourceDefinition's Established condition is
// True: the API server refuses a new scope or kind only then.
func liveEstablished(_, _ any, _, _ bool, live map[string]any) bool {
	status, _ := live["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" {
			return m["status"] == "True"
		}
	}
	return false
}

func isEmptyScalar(v any) bool {
	return v == nil || v == ""
}

// patElem is one element of a parsed rule path.
type patElem struct {
	name  string // field name; empty for items
	index int    // -1: any item
	item  bool
}

// compiledRule is a rule with parsed paths.
type compiledRule struct {
	path   []patElem
	except [][]patElem
	when   condition
}

// builtinRules are the immutable fields of the kinds table (kinds.Rules.Immutable), compiled:
// the built-in Kubernetes kinds' and Gardener's, which no schema announces.
var builtinRules = func() map[schema.GroupKind][]compiledRule {
	out := map[schema.GroupKind][]compiledRule{}
	for _, g := range kinds.Groups() {
		for _, k := range g.Kinds {
			for _, f := range k.Immutable {
				when, ok := conditions[f.When]
				if !ok && f.When != kinds.Always {
					panic(fmt.Sprintf("diff: %s %s: condition %d has no function", k.Kind, f.Path, f.When))
				}
				r := compiledRule{path: parsePattern(f.Path), when: when}
				for _, e := range f.Except {
					r.except = append(r.except, parsePattern(e))
				}
				gk := schema.GroupKind{Group: g.Name, Kind: k.Kind}
				out[gk] = append(out[gk], r)
			}
		}
	}
	return out
}()

// parsePattern parses ".spec.items[*].name" or ".spec.clusterIPs[0]".
func parsePattern(s string) []patElem {
	var out []patElem
	for s != "" {
		switch s[0] {
		case '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			out = append(out, patElem{name: s[1 : end+1]})
			s = s[end+1:]
		case '[':
			end := strings.IndexByte(s, ']')
			inner := s[1:end]
			e := patElem{item: true, index: -1}
			if n, err := strconv.Atoi(inner); err == nil {
				e.index = n
			}
			out = append(out, e)
			s = s[end+1:]
		default:
			panic("diff: bad immutable field pattern " + s)
		}
	}
	return out
}

// fromOpenAPI converts a schema pattern (x-kubernetes-validations self == oldSelf).
func fromOpenAPI(p openapi.Pattern) []patElem {
	out := make([]patElem, len(p))
	for i, e := range p {
		if e == openapi.AnyItem {
			out[i] = patElem{item: true, index: -1}
		} else {
			out[i] = patElem{name: e}
		}
	}
	return out
}

// matchPrefix reports whether the pattern matches the first len(pat) steps of path.
func matchPrefix(pat []patElem, path fieldPath) bool {
	if len(path) < len(pat) {
		return false
	}
	for i, e := range pat {
		s := path[i]
		switch {
		case !e.item:
			if (s.kind != stepField && s.kind != stepMapKey) || s.name != e.name {
				return false
			}
		case e.index >= 0:
			if s.kind != stepIndex || s.index != e.index {
				return false
			}
		default:
			if s.kind == stepField {
				return false
			}
		}
	}
	return true
}

// immutableChanges returns the sorted, distinct immutable field paths that the changes touch;
// conditions see the whole live object, status included.
func immutableChanges(sc *smdschema.Schema, tr smdschema.TypeRef, rules []compiledRule, changes []rawChange, whole, live, merged map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, ch := range changes {
		for _, r := range rules {
			if !matchPrefix(r.path, ch.path) || excepted(r.except, ch.path) {
				continue
			}
			at := ch.path[:len(r.path)]
			if r.when != nil {
				old, oldOK := lookup(sc, tr, live, at)
				new, newOK := lookup(sc, tr, merged, at)
				if !r.when(old, new, oldOK, newOK, whole) {
					continue
				}
			}
			p := at.String()
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sortStrings(out)
	return out
}

func excepted(except [][]patElem, path fieldPath) bool {
	for _, e := range except {
		if matchPrefix(e, path) {
			return true
		}
	}
	return false
}

// lookup returns the value at a path of an object.
func lookup(sc *smdschema.Schema, tr smdschema.TypeRef, obj any, path fieldPath) (any, bool) {
	c := comparer{sc: sc}
	cur := obj
	for _, s := range path {
		atom, _ := sc.Resolve(tr)
		switch s.kind {
		case stepField, stepMapKey:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.name]; !ok {
				return nil, false
			}
			tr = smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)}
			if atom.Map != nil {
				if f, found := atom.Map.FindField(s.name); found {
					tr = f.Type
				} else {
					tr = atom.Map.ElementType
				}
			}
		default:
			l, ok := cur.([]any)
			if !ok || atom.List == nil {
				return nil, false
			}
			tr = atom.List.ElementType
			switch s.kind {
			case stepIndex:
				if s.index >= len(l) {
					return nil, false
				}
				cur = l[s.index]
			case stepSetItem:
				found := false
				for _, v := range l {
					if RenderScalar(v) == s.name {
						cur, found = v, true
						break
					}
				}
				if !found {
					return nil, false
				}
			case stepListKey:
				keys, ok := c.itemKeys(l, atom.List)
				if !ok {
					return nil, false
				}
				found := false
				for i, k := range keys {
					if k == s.name {
						cur, found = l[i], true
						break
					}
				}
				if !found {
					return nil, false
				}
			}
		}
	}
	return cur, true
}
