package render

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// YieldToLive sets each field of obj that paths name (Object.Yield) to its value in live, and
// removes it from obj where live lacks it. A path whose list item obj or live does not have is
// left as it is.
func YieldToLive(obj, live *unstructured.Unstructured, paths []string) {
	for _, p := range paths {
		steps := strings.Split(p, ".")
		value, found := lookup(live.Object, steps)
		parent, ok := lookupParent(obj.Object, steps)
		if !ok {
			continue
		}
		last := steps[len(steps)-1]
		if found {
			parent[last] = value
		} else {
			delete(parent, last)
		}
	}
}

// lookup finds the value at steps under m.
func lookup(m map[string]any, steps []string) (any, bool) {
	var cur any = m
	for _, step := range steps {
		cur = child(cur, step, false)
		if cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// lookupParent finds the map holding the last step of steps under m, creating maps on the way;
// false when a list item on the way does not exist.
func lookupParent(m map[string]any, steps []string) (map[string]any, bool) {
	var cur any = m
	for _, step := range steps[:len(steps)-1] {
		cur = child(cur, step, true)
		if cur == nil {
			return nil, false
		}
	}
	parent, ok := cur.(map[string]any)
	return parent, ok
}

// child is the field step of cur: "name" in a map, or "list[key=value]", the item of the list
// field whose key has the value. With create, a missing map field is created.
func child(cur any, step string, create bool) any {
	m, ok := cur.(map[string]any)
	if !ok {
		return nil
	}
	field, selector, isItem := strings.Cut(step, "[")
	if !isItem {
		next, exists := m[field]
		if !exists && create {
			next = map[string]any{}
			m[field] = next
		}
		return next
	}
	key, value, _ := strings.Cut(strings.TrimSuffix(selector, "]"), "=")
	list, _ := m[field].([]any)
	for _, item := range list {
		if im, ok := item.(map[string]any); ok && im[key] == value {
			return im
		}
	}
	return nil
}
