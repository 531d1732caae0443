package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// cycles reports each cycle once: its members sorted by Less, then every edge between members
// with where it is written (references, depends_on) or why it was added (implicit edges). The
// loader rejects reference cycles, so each cycle here has at least one implicit edge; the
// diagnostic points at the first reference edge of the cycle when there is one.
func (g *Graph) cycles() hcl.Diagnostics {
	component := stronglyConnected(g.deps)
	size := make([]int, len(component))
	for _, c := range component {
		size[c]++
	}
	members := map[int][]vertex{}
	for v, c := range component {
		if size[c] > 1 { // edges from an instance to itself are never added
			members[c] = append(members[c], vertex(v)) // in Less order, as vertices are numbered
		}
	}
	var cycles [][]vertex
	for _, m := range members {
		cycles = append(cycles, m)
	}
	slices.SortFunc(cycles, func(a, b []vertex) int { return cmp.Compare(a[0], b[0]) })
	var diags hcl.Diagnostics
	for _, m := range cycles {
		diags = append(diags, g.cycleDiagnostic(m, component))
	}
	return diags
}

func (g *Graph) cycleDiagnostic(members []vertex, component []int) *hcl.Diagnostic {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = string(g.addrs[m])
	}
	var closing []string
	var subject *hcl.Range
	for _, from := range members {
		for _, to := range g.deps[from] {
			if component[to] != component[from] {
				continue
			}
			for _, e := range g.between(from, to) {
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
