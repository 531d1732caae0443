package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/declarative-gardener/gardener/engine/config"
)

// The views below print the graph for people (text) and for drawing tools (Graphviz DOT,
// Mermaid). All three list instances in Order and each instance's dependencies by Less, so the
// same landscape always prints the same bytes. Edges point from a dependency to what is applied
// after it, the direction apply flows.

// WriteText writes one line per instance in Order, followed by what it is applied after:
// `seed.local <- garden.local`.
func (g *Graph) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, n := range g.order {
		bw.WriteString(string(n))
		if deps := g.deps[n]; len(deps) > 0 {
			bw.WriteString(" <- ")
			for i, d := range deps {
				if i > 0 {
					bw.WriteString(", ")
				}
				bw.WriteString(string(d))
			}
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// WriteDOT writes a Graphviz digraph named after the landscape. Every ID is a quoted string,
// since addresses contain dots, brackets and quotes; edges that only implicit reasons make are
// dashed.
func (g *Graph) WriteDOT(w io.Writer, name string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotID(name))
	bw.WriteString("  rankdir = \"LR\";\n  node [shape = \"box\"];\n")
	for _, n := range g.order {
		fmt.Fprintf(bw, "  %s;\n", dotID(string(n)))
	}
	for _, n := range g.order {
		for _, d := range g.deps[n] {
			style := ""
			if g.implicitOnly(n, d) {
				style = " [style = \"dashed\"]"
			}
			fmt.Fprintf(bw, "  %s -> %s%s;\n", dotID(string(d)), dotID(string(n)), style)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// dotID quotes s as a DOT string: backslashes and double quotes are escaped, and line breaks
// (which addresses never contain, but a landscape name might) become \n.
func dotID(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// WriteMermaid writes a Mermaid flowchart. Node IDs are n0, n1, ... in Order, since addresses
// are not valid Mermaid IDs; the address is the node's quoted label. Edges that only implicit
// reasons make are dotted.
func (g *Graph) WriteMermaid(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("flowchart LR\n")
	id := make(map[config.InstanceAddress]string, len(g.order))
	for i, n := range g.order {
		id[n] = fmt.Sprintf("n%d", i)
		fmt.Fprintf(bw, "  %s[\"%s\"]\n", id[n], mermaidText(string(n)))
	}
	for _, n := range g.order {
		for _, d := range g.deps[n] {
			arrow := "-->"
			if g.implicitOnly(n, d) {
				arrow = "-.->"
			}
			fmt.Fprintf(bw, "  %s %s %s\n", id[d], arrow, id[n])
		}
	}
	return bw.Flush()
}

// mermaidText escapes a label with Mermaid's entity codes: quotes would end the label, and
// #, <, >, & and backticks would be read as entities, HTML or Markdown.
func mermaidText(s string) string {
	r := strings.NewReplacer(`#`, `#35;`, `"`, `#quot;`, `<`, `#lt;`, `>`, `#gt;`, `&`, `#amp;`, "`", `#96;`, "\n", " ")
	return r.Replace(s)
}

// implicitOnly reports whether every reason from depends on to is an implicit edge.
func (g *Graph) implicitOnly(from, to config.InstanceAddress) bool {
	for _, e := range g.edges[[2]config.InstanceAddress{from, to}] {
		if e.Kind != Implicit {
			return false
		}
	}
	return true
}
