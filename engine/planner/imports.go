package planner

import (
	"fmt"

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

// checkImports reports the import blocks the plan cannot carry out, at the block: the instance
// they import into renders no such object (a typo in the ID, or the wrong instance), or the
// object does not exist in the cluster (there is nothing to import; the plan would create it).
// Instances outside --target are not planned and not checked.
func checkImports(l *config.Landscape, pl *plan.Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, imp := range l.Imports {
		var found *plan.ObjectChange
		planned := false
		for _, c := range pl.Components {
			comp, err := address.Parse(c.Address)
			if err != nil || !imp.To.Matches(comp) {
				continue
			}
			planned = true
			for _, o := range c.Objects {
				if o.Cluster == imp.Cluster && o.Ref == imp.Ref {
					found = o
				}
			}
		}
		switch {
		case !planned:
			continue
		case found == nil:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Nothing to import into",
				Detail:  fmt.Sprintf("%s renders no %s in cluster %s, so it cannot import it; check the import block's id and to.", imp.To, imp.Ref, imp.Cluster),
				Subject: imp.IDRange.Ptr(),
			})
		case found.Action == plan.Create:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Cannot import a missing object",
				Detail:  fmt.Sprintf("%s does not exist in cluster %s, so there is nothing to import; remove the import block to create it.", imp.Ref, imp.Cluster),
				Subject: imp.IDRange.Ptr(),
			})
		}
	}
	return diags
}
