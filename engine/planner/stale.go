package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// CheckStale compares a saved plan with a fresh plan of the same landscape and refuses the saved
// one when anything it was computed from moved: an object it touches has another
// resourceVersion (or appeared, or vanished), or an object renders differently (another
// configuration hash). Then the fresh plan is the saved one, and applying it applies exactly
// what was reviewed. Objects are compared as the saved plan shows them, with the names that
// depend on sensitive values hidden; several objects that show alike are compared as a group.
func CheckStale(saved *plan.File, fresh *plan.Result) error {
	type key struct {
		cluster string
		ref     object.Ref
	}
	freshChanges := map[key][]*plan.ObjectChange{}
	for _, c := range fresh.Plan.Components {
		for _, o := range c.Objects {
			k := key{o.Cluster, o.Shown()}
			freshChanges[k] = append(freshChanges[k], o)
		}
	}
	savedChanges := map[key][]*plan.ObjectChange{}
	for _, c := range saved.Plan.Components {
		for _, o := range c.Objects {
			k := key{o.Cluster, o.Ref}
			savedChanges[k] = append(savedChanges[k], o)
		}
	}
	var moved []string
	if saved.Plan.StateSerial != fresh.Plan.StateSerial {
		moved = append(moved, fmt.Sprintf("the state was written since (serial %d, planned at %d)", fresh.Plan.StateSerial, saved.Plan.StateSerial))
	}
	for k, group := range savedChanges {
		fs := freshChanges[k]
		for i, o := range group {
			if i >= len(fs) {
				moved = append(moved, fmt.Sprintf("%s in cluster %s is no longer part of the plan", o.Ref, o.Cluster))
				continue
			}
			f := fs[i]
			switch {
			case f.ResourceVersion != o.ResourceVersion:
				moved = append(moved, fmt.Sprintf("%s in cluster %s changed (resourceVersion %s, planned at %s)", o.Ref, o.Cluster, orNone(f.ResourceVersion), orNone(o.ResourceVersion)))
			case f.Action != o.Action:
				moved = append(moved, fmt.Sprintf("%s in cluster %s is now planned to %s, not %s", o.Ref, o.Cluster, f.Action, o.Action))
			}
		}
	}
	for k, group := range freshChanges {
		for i, f := range group {
			if f.Action != plan.NoOp && i >= len(savedChanges[k]) {
				moved = append(moved, fmt.Sprintf("%s in cluster %s would be %sd, which the saved plan does not include", k.ref, k.cluster, string(f.Action)))
			}
		}
	}
	// The fresh objects as a saved plan holds them, so that a hidden name compares as it was
	// saved.
	freshHashes := map[key][]string{}
	for _, o := range plan.NewFile("", fresh, nil).Objects {
		k := key{o.Cluster, refOfMap(o.Object)}
		freshHashes[k] = append(freshHashes[k], o.Hash)
	}
	savedHashes := map[key][]string{}
	for _, o := range saved.Objects {
		k := key{o.Cluster, refOfMap(o.Object)}
		savedHashes[k] = append(savedHashes[k], o.Hash)
	}
	for k, hashes := range savedHashes {
		have := slices.Sorted(slices.Values(freshHashes[k]))
		if !slices.Equal(slices.Sorted(slices.Values(hashes)), have) {
			moved = append(moved, fmt.Sprintf("%s in cluster %s renders differently than when the plan was saved", k.ref, k.cluster))
		}
	}
	if len(moved) == 0 {
		return nil
	}
	sort.Strings(moved)
	return fmt.Errorf("the saved plan is stale; plan again:\n  %s", strings.Join(moved, "\n  "))
}

func refOfMap(m map[string]any) object.Ref {
	var r object.Ref
	if av, ok := m["apiVersion"].(string); ok {
		if g, _, found := strings.Cut(av, "/"); found {
			r.Group = g
		}
	}
	r.Kind, _ = m["kind"].(string)
	if md, ok := m["metadata"].(map[string]any); ok {
		r.Name, _ = md["name"].(string)
		r.Namespace, _ = md["namespace"].(string)
	}
	return r
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
