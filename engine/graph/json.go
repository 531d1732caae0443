package graph

import (
	"encoding/json"
	"io"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// JSONFormatVersion is the version of the graph's JSON form (docs/cli.md, "gardener graph").
var JSONFormatVersion = formatversion.Version{Major: 1, Minor: 0}

// jsonGraph is the graph for programs: the instances in Order with the block they come from,
// and every edge with all its reasons.
type jsonGraph struct {
	FormatVersion formatversion.Version `json:"format_version"`
	Landscape     string                `json:"landscape"`
	Nodes         []jsonNode            `json:"nodes"`
	Edges         []jsonEdge            `json:"edges"`
}

type jsonNode struct {
	Address string `json:"address"`
	// Block is the address of the block the instance comes from; Kind (garden, seed, shoot,
	// component) and Type (a component's type) are the block's. A part of a composite instance
	// names its composite in PartOf and has its composite's block.
	Block        string   `json:"block,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	Type         string   `json:"type,omitempty"`
	PartOf       string   `json:"part_of,omitempty"`
	Dependencies []string `json:"dependencies"`
}

// jsonEdge says that Dependent is applied after Dependency, and why: one entry per reason.
type jsonEdge struct {
	Dependent  string `json:"dependent"`
	Dependency string `json:"dependency"`
	// Kind is reference, depends_on, implicit (from rendered objects) or follows.
	Kind   string      `json:"kind"`
	Reason string      `json:"reason"`
	Range  *diag.Range `json:"range,omitempty"`
}

// WriteJSON writes the graph as one JSON document named after the landscape: nodes in Order,
// each with its direct dependencies by Less, and edges as Edges sorts them, so that the same
// landscape always gives the same bytes.
func (g *Graph) WriteJSON(w io.Writer, landscape string) error {
	out := jsonGraph{FormatVersion: JSONFormatVersion, Landscape: landscape, Nodes: []jsonNode{}, Edges: []jsonEdge{}}
	for _, v := range g.order {
		n := g.addrs[v]
		node := jsonNode{Address: string(n), Dependencies: []string{}}
		if inst := g.instances[n]; inst != nil && inst.Block != nil {
			node.Block, node.Kind, node.Type = string(inst.Block.Addr), string(inst.Block.Kind), inst.Block.Type
		}
		if p, ok := g.partOf[n]; ok {
			node.PartOf = string(p)
		}
		for _, d := range g.deps[v] {
			node.Dependencies = append(node.Dependencies, string(g.addrs[d]))
		}
		out.Nodes = append(out.Nodes, node)
	}
	for _, e := range g.Edges() {
		je := jsonEdge{Dependent: string(e.From), Dependency: string(e.To), Kind: e.Kind.String(), Reason: e.Reason}
		if r := e.Range; r != nil {
			je.Range = &diag.Range{
				Filename: r.Filename,
				Start:    diag.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:      diag.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
			}
		}
		out.Edges = append(out.Edges, je)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
