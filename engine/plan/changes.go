package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
)

// hashPath is the path of the configuration hash annotation: bookkeeping that changes with every
// configuration change, so plans do not show it.
var hashPath = fmt.Sprintf(".metadata.annotations[%s]", inventory.ConfigHashAnnotation)

// fieldChanges turns a diff's changes into redacted plan changes.
func fieldChanges(changes []diff.Change, red *render.Redactor) []FieldChange {
	var out []FieldChange
	for _, c := range changes {
		switch {
		case c.Path == hashPath:
		case c.Old == nil && isMap(c.New):
			// A whole map added (labels or annotations the object had none of) is shown key by
			// key, like a creation, so each entry reads the same as when it is added alone.
			out = append(out, leaves(c.Path, c.New, c.Sensitive, red, true)...)
		case c.New == nil && isMap(c.Old):
			out = append(out, leaves(c.Path, c.Old, c.Sensitive, red, false)...)
		default:
			out = append(out, redact(FieldChange{
				Path: c.Path, Before: c.Old, After: c.New, HasBefore: c.Old != nil, HasAfter: c.New != nil, Sensitive: c.Sensitive,
			}, red))
		}
	}
	return out
}

func isMap(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) > 0
}

// creation lists every field a new object sets, as changes from nothing.
func creation(u *unstructured.Unstructured, red *render.Redactor) []FieldChange {
	secret := kinds.HoldsSecretDataOf(u.GetAPIVersion(), u.GetKind())
	return walkLeaves("", u.Object, false, secret, red, true)
}

// leaves lists the leaves of an added (added true) or removed value at path.
func leaves(path string, v any, sensitive bool, red *render.Redactor, added bool) []FieldChange {
	return walkLeaves(path, v, sensitive, false, red, added)
}

// walkLeaves lists the leaves of v as added or removed fields. secret marks a Secret object,
// whose data and stringData are sensitive.
func walkLeaves(root string, value any, sensitive, secret bool, red *render.Redactor, added bool) []FieldChange {
	var out []FieldChange
	leaf := func(path string, v any, sensitive bool) FieldChange {
		if added {
			return redact(FieldChange{Path: path, After: v, HasAfter: true, Sensitive: sensitive}, red)
		}
		return redact(FieldChange{Path: path, Before: v, HasBefore: true, Sensitive: sensitive}, red)
	}
	var walk func(path string, v any, sensitive bool)
	walk = func(path string, v any, sensitive bool) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				out = append(out, leaf(path, v, sensitive))
				return
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(childPath(path, k), v[k], sensitive || (secret && path == root && (k == "data" || k == "stringData")))
			}
		case []any:
			if len(v) == 0 {
				out = append(out, leaf(path, v, sensitive))
				return
			}
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e, sensitive)
			}
		default:
			if path == hashPath {
				return
			}
			out = append(out, leaf(path, v, sensitive))
		}
	}
	walk(root, value, sensitive)
	return out
}

// childPath appends a map key: a plain field as ".key", a key of a map-typed field (labels,
// annotations, data) in brackets, the way diff paths write them.
func childPath(parent, key string) string {
	for _, m := range []string{".metadata.labels", ".metadata.annotations", ".data", ".stringData", ".binaryData"} {
		// The maps of an object, or of an object inside a ManagedResource's contents.
		if parent == m || (strings.HasSuffix(parent, m) && strings.HasPrefix(parent, ".contents[")) {
			return fmt.Sprintf("%s[%s]", parent, key)
		}
	}
	return parent + "." + key
}

// redact removes secret values and marks values known only after apply.
func redact(c FieldChange, red *render.Redactor) FieldChange {
	if c.Sensitive || red.Sensitive(c.Before) || red.Sensitive(c.After) {
		c.Sensitive = true
		c.Before, c.After = nil, nil
		return c
	}
	if render.Unknown(c.After) {
		c.Unknown = true
		c.After = nil
	}
	return c
}

// heldPaths keeps one copy of each field path the plan's changes name. A full plan lists every
// field of every object it creates, and its objects repeat the same paths (every shoot's
// kube-apiserver Deployment has the same fields): without it, each change held a path of its
// own, a third of the changes' memory. Safe for the comparison's goroutines.
type heldPaths struct {
	mu    sync.Mutex
	paths map[string]string
}

func newHeldPaths() *heldPaths { return &heldPaths{paths: map[string]string{}} }

// hold returns changes as the plan keeps them: in a slice of their own length (appending left
// up to half of it unused) with their paths shared.
func (h *heldPaths) hold(changes []FieldChange) []FieldChange {
	if h == nil || len(changes) == 0 {
		return changes
	}
	out := make([]FieldChange, len(changes))
	copy(out, changes)
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range out {
		p := out[i].Path
		if held, ok := h.paths[p]; ok {
			out[i].Path = held
		} else {
			h.paths[p] = p
		}
	}
	return out
}
