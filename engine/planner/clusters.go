package planner

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
)

// checkClusters connects every cluster block of an evaluated landscape whose access is known,
// before anything renders. Connecting a live cluster reads only its kubeconfig, so a kubeconfig
// or context that does not exist is found here and reported once, at the cluster block, instead
// of as an error at every component that reads the cluster while it renders. Other failures are
// left to the plan proper, which meets them where they matter.
func checkClusters(res *config.Result, conns *connections) hcl.Diagnostics {
	if res == nil || res.Evaluated == nil || res.Landscape == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(res.Evaluated.Clusters)) {
		v := res.Evaluated.Clusters[name]
		if unmarked, _ := v.UnmarkDeep(); !unmarked.IsWhollyKnown() {
			continue // known only once rendered
		}
		_, err := conns.get(name, v)
		var access *cluster.AccessError
		if !errors.As(err, &access) {
			continue
		}
		if _, marks := v.UnmarkDeep(); marks.Has(config.SensitiveMark) {
			// A kubeconfig or context from a sensitive variable is used, never printed.
			hidden := *access
			hidden.Kubeconfig, hidden.Context = "(sensitive value)", "(sensitive value)"
			access = &hidden
		}
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cluster not found",
			Detail: fmt.Sprintf("Cluster %q is reached through %s. Point the block's kubeconfig and context (or KUBECONFIG) at the cluster; "+
				"to plan without any cluster, gardener plan --offline plans and gardener render --offline renders against empty clusters.", name, access),
		}
		if c := res.Landscape.Clusters[name]; c != nil {
			d.Subject = c.DeclRange.Ptr()
		}
		diags = append(diags, d)
	}
	return diags
}
