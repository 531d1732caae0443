package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
)

// forbiddenReplacement returns the error for an object of a kind a plan never replaces
// (kinds.Rules.Irreplaceable) whose immutable fields change, nil for other objects. A change of
// an immutable field is normally planned as delete and create; for these kinds, deleting the
// object deletes a cluster (or the projects, seeds and backups around clusters). Gardener
// refuses the change itself, so the plan fails and names the way out. Values are shown unless
// they are secret or their place is marked sensitive (m).
func forbiddenReplacement(addr config.InstanceAddress, cluster string, ref object.Ref, r *diff.Result, red *render.Redactor, m *marks) error {
	rules, _ := kinds.Lookup(ref.GroupKind())
	k := rules.Irreplaceable
	if k == nil || len(r.Immutable) == 0 {
		return nil
	}
	fields := make([]string, len(r.Immutable))
	for i, path := range r.Immutable {
		hide, _ := m.field(path)
		fields[i] = m.path(path)
		if !hide {
			fields[i] += fromTo(path, r.Changes, red)
		}
	}
	verb := "is"
	if len(fields) > 1 {
		verb = "are"
	}
	remedy := "restore the old value"
	if k.Instead != "" {
		remedy += " or " + k.Instead
	}
	return fmt.Errorf("%s: %s in cluster %s: %s %s immutable in Gardener; a changed value cannot be applied and replacing the %s would %s: %s",
		addr, ref, cluster, joinAnd(fields), verb, ref.Kind, k.Loses, remedy)
}

// fromTo describes the change at exactly path as ` (from "a" to "b")`; empty when the change is
// below path (a list or object) or its values are secret.
func fromTo(path string, changes []diff.Change, red *render.Redactor) string {
	for _, c := range changes {
		if c.Path != path {
			continue
		}
		if c.Sensitive || red.Sensitive(c.Old) || red.Sensitive(c.New) || render.Unknown(c.New) {
			return ""
		}
		return fmt.Sprintf(" (from %s to %s)", showValue(c.Old), showValue(c.New))
	}
	return ""
}

func showValue(v any) string {
	if v == nil {
		return "unset"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
