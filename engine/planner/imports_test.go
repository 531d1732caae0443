package planner

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// An import block must name an object its instance renders and that exists; an object another
// instance renders cannot be imported into this one.
func TestCheckImports(t *testing.T) {
	ca := object.Ref{Kind: "Secret", Namespace: "garden", Name: "ca"}
	to := func(s string) address.Address {
		a, err := address.Parse(s)
		require.NoError(t, err)
		return a
	}
	planOf := func(action plan.Action, addrs ...string) *plan.Plan {
		pl := &plan.Plan{}
		for _, a := range addrs {
			pl.Components = append(pl.Components, &plan.Component{Address: a, Objects: []*plan.ObjectChange{{Cluster: "runtime", Ref: ca, Action: action}}})
		}
		return pl
	}
	for _, tc := range []struct {
		name    string
		to      string
		pl      *plan.Plan
		summary string
	}{
		{"imported", "component.generated_secret.ca", planOf(plan.Update, "component.generated_secret.ca"), ""},
		{"into a composite whose part renders it", "shoot.dev", planOf(plan.Update, "shoot.dev.secrets"), ""},
		{"outside --target", "component.generated_secret.ca", &plan.Plan{}, ""},
		{"missing", "component.generated_secret.ca", planOf(plan.Create, "component.generated_secret.ca"), "Cannot import a missing object"},
		{"nothing rendered", "component.generated_secret.ca", &plan.Plan{Components: []*plan.Component{{Address: "component.generated_secret.ca"}}}, "Nothing to import into"},
		{"rendered by another instance", "component.generated_secret.ca", planOf(plan.Update, "component.generated_secret.other"), "Imported into another instance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &config.Landscape{Imports: []*config.Import{{To: to(tc.to), ID: "runtime/Secret/garden/ca", Cluster: "runtime", Ref: ca, IDRange: hcl.Range{Filename: "import.hcl", Start: hcl.Pos{Line: 3}}}}}
			diags := checkImports(l, tc.pl)
			if tc.summary == "" {
				assert.Empty(t, diags)
				return
			}
			require.Len(t, diags, 1)
			assert.Equal(t, tc.summary, diags[0].Summary)
			assert.Equal(t, 3, diags[0].Subject.Start.Line)
		})
	}
}
