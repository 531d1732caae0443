package readiness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// TestEveryReadinessRuleHasAFunction checks the kinds table against this package: every rule the
// table names has a function, and every function is named by the table.
func TestEveryReadinessRuleHasAFunction(t *testing.T) {
	named := map[kinds.Readiness]bool{kinds.ObservedGeneration: true}
	for _, g := range kinds.Groups() {
		if g.Readiness != "" {
			named[g.Readiness] = true
			assert.Contains(t, rules, g.Readiness, "group %q", g.Name)
		}
		for _, k := range g.Kinds {
			if k.Readiness != "" {
				named[k.Readiness] = true
				assert.Contains(t, rules, k.Readiness, "%s.%s", k.Kind, g.Name)
			}
		}
	}
	for r := range rules {
		assert.True(t, named[r], "rule %s: no kind of the table names it", r)
	}
}
