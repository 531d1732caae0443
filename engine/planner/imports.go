package planner

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// Imports: an import block adopts an existing object into the instance that renders it (see
// config.Import). The generator step reuses an imported Secret's key material (provenanceFromState),
// the plan compares the object with reason import (plan.Options.Imports), and apply takes over
// the fields others own. An import block stays harmless once applied: the object is then the
// landscape's own (its lineage, recorded in the state) and is planned like any other.

// imports are the landscape's import blocks as the plan takes them.
func imports(l *config.Landscape) []plan.Import {
	out := make([]plan.Import, 0, len(l.Imports))
	for _, imp := range l.Imports {
		out = append(out, plan.Import{ID: imp.ID, Cluster: imp.Cluster, Ref: imp.Ref, To: imp.To})
	}
	return out
}

// checkImports reports the import blocks the plan cannot carry out, at the block: another
// instance than the one they import into renders the object, that instance renders no such object
// (a typo in the ID, or the wrong instance), or the object does not exist in the cluster (there
// is nothing to import; the plan would create it). An import into an instance outside --target
// whose object nothing in the plan renders is not checked.
func checkImports(l *config.Landscape, pl *plan.Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	fail := func(imp *config.Import, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: imp.IDRange.Ptr()})
	}
	for _, imp := range l.Imports {
		var found *plan.ObjectChange
		planned := false
		var others []string
		for _, c := range pl.Components {
			comp, err := address.Parse(c.Address)
			into := err == nil && imp.To.Matches(comp)
			planned = planned || into
			for _, o := range c.Objects {
				if o.Cluster != imp.Cluster || o.Ref != imp.Ref || o.Action == plan.Delete {
					continue
				}
				if into {
					found = o
				} else {
					others = append(others, c.Address)
				}
			}
		}
		switch {
		case len(others) > 0:
			fail(imp, "Imported into another instance", fmt.Sprintf("%s in cluster %s is rendered by %s, not by %s; import it into the instance that renders it.", imp.Ref, imp.Cluster, strings.Join(others, ", "), imp.To))
		case !planned:
		case found == nil:
			fail(imp, "Nothing to import into", fmt.Sprintf("%s renders no %s in cluster %s, so it cannot import it; check the import block's id and to.", imp.To, imp.Ref, imp.Cluster))
		case found.Action == plan.Create:
			fail(imp, "Cannot import a missing object", fmt.Sprintf("%s does not exist in cluster %s, so there is nothing to import; remove the import block to create it.", imp.Ref, imp.Cluster))
		}
	}
	return diags
}
