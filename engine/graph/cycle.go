package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/config"
)

// cycles reports each cycle once: its members sorted by Less, then every edge between members
// with where it is written (references, depends_on) or why it was added (implicit edges). The
// loader rejects reference cycles, so each cycle here has at least one implicit edge; the
// diagnostic points at the first reference edge of the cycle when there is one.
func (g *Graph) cycles() hcl.Diagnostics {
	sccs, err := graph.StronglyConnectedComponents(g.g)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unordered landscape", Detail: fmt.Sprintf("The component graph cannot be checked for cycles: %v.", err)}}
	}
	var cycles [][]config.InstanceAddress
	for _, scc := range sccs {
		if len(scc) > 1 { // edges from an instance to itself are never added
			slices.SortFunc(scc, compareAddr)
			cycles = append(cycles, scc)
		}
	}
	slices.SortFunc(cycles, func(a, b []config.InstanceAddress) int { return compareAddr(a[0], b[0]) })
	var diags hcl.Diagnostics
	for _, members := range cycles {
		diags = append(diags, g.cycleDiagnostic(members))
	}
	return diags
}

func (g *Graph) cycleDiagnostic(members []config.InstanceAddress) *hcl.Diagnostic {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = string(m)
	}
	var closing []string
	var subject *hcl.Range
	for _, from := range members {
		for _, to := range g.deps[from] {
			if !slices.Contains(members, to) {
				continue
			}
			for _, e := range g.edges[[2]config.InstanceAddress{from, to}] {
				closing = append(closing, describeEdge(e))
				if subject == nil && e.Range != nil {
					subject = e.Range
				}
			}
		}
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Dependency cycle",
		Detail: fmt.Sprintf("These components must each be applied after another of them, so none can be applied first: %s.\n%s",
			strings.Join(names, ", "), strings.Join(closing, "\n")),
		Subject: subject,
	}
}

// describeEdge is one line of a cycle diagnostic: "a depends on b: refers to b at main.hcl:3,9-15"
// or, for an implicit edge, "a depends on b: objects in namespace "x" need their Namespace (implicit)".
func describeEdge(e Edge) string {
	s := fmt.Sprintf("%s depends on %s: %s", e.From, e.To, e.Reason)
	if e.Range != nil {
		return s + " at " + e.Range.String()
	}
	return s + " (" + e.Kind.String() + ")"
}
