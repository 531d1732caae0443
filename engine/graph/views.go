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
// after it, the direction apply flows. Each view draws an edge in the style of its strongest
// reason (Style) and ends with a legend of the styles it drew, so that a reader can tell what the
// landscape declares from what rendering implied.

// Style is how the views draw the edge between two instances, after the strongest of its reasons.
type Style int

// The styles, from the strongest reason to the weakest.
const (
	// Declared edges have a reference or depends_on among their reasons: the landscape's author
	// wrote them.
	Declared Style = iota
	// Following edges are Follows edges only: applied after the dependency and deleted after it.
	Following
	// Implied edges are implicit only: what the instances render (a CRD, a Namespace, an
	// extension's registration) or a composite waiting for its parts.
	Implied
)

// Styles are every style, in the order legends list them.
var Styles = []Style{Declared, Implied, Following}

// String is the style's name in legends and JSON.
func (s Style) String() string {
	switch s {
	case Declared:
		return "declared"
	case Following:
		return "follows"
	}
	return "implied"
}

// Meaning says what an edge of the style means, for legends.
func (s Style) Meaning() string {
	switch s {
	case Declared:
		return "a reference or depends_on in the landscape"
	case Following:
		return "applied after its dependency and deleted after it too (it follows an object another controller creates once the dependency exists)"
	}
	return "what the instances render (a CRD, a Namespace, an extension's registration) or a composite's parts"
}

// Style is the style of the edge from depends on to, after its strongest reason.
func (g *Graph) Style(from, to config.InstanceAddress) Style {
	return g.style(g.idOf(from), g.idOf(to))
}

func (g *Graph) style(from, to vertex) Style {
	style := Implied
	for _, e := range g.between(from, to) {
		switch e.Kind {
		case Reference, DependsOn:
			return Declared
		case Follows:
			style = Following
		}
	}
	return style
}

// textArrows are the text view's arrows per style.
var textArrows = map[Style]string{Declared: "<-", Implied: "<~", Following: "<<"}

// WriteText writes one line per instance in Order, followed by what it is applied after, grouped
// by style: `seed.local <- garden.local` for declared dependencies, then `<~` and the implied
// ones, then `<<` and those it follows. A legend of the arrows used ends the output, as comment
// lines after an empty line.
func (g *Graph) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	used := map[Style]bool{}
	for _, n := range g.order {
		bw.WriteString(string(g.addrs[n]))
		for _, style := range []Style{Declared, Implied, Following} {
			sep := " " + textArrows[style] + " "
			for _, d := range g.deps[n] {
				if g.style(n, d) != style {
					continue
				}
				used[style] = true
				bw.WriteString(sep)
				bw.WriteString(string(g.addrs[d]))
				sep = ", "
			}
		}
		bw.WriteString("\n")
	}
	if len(used) > 0 {
		bw.WriteString("\n# legend: each line is an instance and what it is applied after, by the arrows\n")
		for _, style := range Styles {
			if used[style] {
				fmt.Fprintf(bw, "# %s %s: %s\n", textArrows[style], style, style.Meaning())
			}
		}
	}
	return bw.Flush()
}

// dotStyles are the DOT view's edge styles.
var dotStyles = map[Style]string{Declared: "solid", Implied: "dashed", Following: "bold"}

// WriteDOT writes a Graphviz digraph named after the landscape. Every ID is a quoted string,
// since addresses contain dots, brackets and quotes. Declared edges are solid, implied ones
// dashed and those an instance follows bold; a cluster "legend" shows one edge of each style used,
// between nodes whose IDs start with a space, which no address does.
func (g *Graph) WriteDOT(w io.Writer, name string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotID(name))
	bw.WriteString("  rankdir = \"LR\";\n  node [shape = \"box\"];\n")
	for _, n := range g.order {
		fmt.Fprintf(bw, "  %s;\n", dotID(string(g.addrs[n])))
	}
	used := map[Style]bool{}
	for _, n := range g.order {
		for _, d := range g.deps[n] {
			style := g.style(n, d)
			used[style] = true
			attrs := ""
			if style != Declared {
				attrs = fmt.Sprintf(" [style = %s]", dotID(dotStyles[style]))
			}
			fmt.Fprintf(bw, "  %s -> %s%s;\n", dotID(string(g.addrs[d])), dotID(string(g.addrs[n])), attrs)
		}
	}
	if len(used) > 0 {
		bw.WriteString("  subgraph \"cluster_legend\" {\n    label = \"legend: dependency -> dependent\";\n    node [shape = \"point\"];\n")
		for _, style := range Styles {
			if !used[style] {
				continue
			}
			from, to := dotID(" legend "+style.String()+" from"), dotID(" legend "+style.String()+" to")
			fmt.Fprintf(bw, "    %s -> %s [style = %s, label = %s];\n", from, to, dotID(dotStyles[style]), dotID(style.String()+": "+style.Meaning()))
		}
		bw.WriteString("  }\n")
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

// mermaidArrows are the Mermaid view's arrows per style.
var mermaidArrows = map[Style]string{Declared: "-->", Implied: "-.->", Following: "==>"}

// WriteMermaid writes a Mermaid flowchart. Node IDs are n0, n1, ... in Order, since addresses
// are not valid Mermaid IDs; the address is the node's quoted label. Declared edges are arrows,
// implied ones dotted and those an instance follows thick; the legend is a list of comments
// (%%), which Mermaid does not draw.
func (g *Graph) WriteMermaid(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("flowchart LR\n")
	id := make([]string, len(g.addrs))
	for i, n := range g.order {
		id[n] = fmt.Sprintf("n%d", i)
		fmt.Fprintf(bw, "  %s[\"%s\"]\n", id[n], mermaidText(string(g.addrs[n])))
	}
	used := map[Style]bool{}
	for _, n := range g.order {
		for _, d := range g.deps[n] {
			style := g.style(n, d)
			used[style] = true
			fmt.Fprintf(bw, "  %s %s %s\n", id[d], mermaidArrows[style], id[n])
		}
	}
	if len(used) > 0 {
		bw.WriteString("%% legend: arrows point from a dependency to its dependent\n")
		for _, style := range Styles {
			if used[style] {
				fmt.Fprintf(bw, "%%%% %s %s: %s\n", mermaidArrows[style], style, style.Meaning())
			}
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
