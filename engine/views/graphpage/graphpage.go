// Package graphpage writes `gardener graph --format html`: one self-contained HTML page in which a
// reviewer explores a landscape's component graph (zoom, pan, search, a component's dependencies
// and dependents and why, and with a saved plan each component's action). The page needs no
// network: its script and style are inlined, written for this page (page.js, page.css), and the
// layout is computed here, so that the same graph always gives the same bytes and the script
// only draws and reacts.
package graphpage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/plan"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// Node is one instance of the graph as the page shows it.
type Node struct {
	Address string `json:"address"`
	// Kind is garden, seed, shoot or component; Type the block's type; PartOf the composite a
	// part belongs to.
	Kind   string `json:"kind,omitempty"`
	Type   string `json:"type,omitempty"`
	PartOf string `json:"part_of,omitempty"`
	// Source is where the instance's block is declared, as file:line within the landscape.
	Source       string       `json:"source,omitempty"`
	Dependencies []Dependency `json:"-"`
}

// Dependency is one thing a node is applied after, with the style of the edge (graph.Style)
// and every reason for it.
type Dependency struct {
	Address string
	Style   graph.Style
	Reasons []string
}

// FromGraph lists the graph's instances in apply order with their dependencies.
func FromGraph(g *graph.Graph) []Node {
	partOf := map[config.InstanceAddress]config.InstanceAddress{}
	order := g.Order()
	for _, n := range order {
		for _, p := range g.Parts(n) {
			partOf[p] = n
		}
	}
	nodes := make([]Node, 0, len(order))
	for _, n := range order {
		node := Node{Address: string(n), PartOf: string(partOf[n])}
		if inst := g.Instance(n); inst != nil && inst.Block != nil {
			node.Kind, node.Type = string(inst.Block.Kind), inst.Block.Type
			if r := inst.Block.DeclRange; r.Filename != "" {
				node.Source = fmt.Sprintf("%s:%d", filepath.Base(r.Filename), r.Start.Line)
			}
		}
		for _, d := range g.Dependencies(n) {
			dep := Dependency{Address: string(d), Style: g.Style(n, d)}
			for _, e := range g.EdgesBetween(n, d) {
				dep.Reasons = append(dep.Reasons, e.Reason)
			}
			node.Dependencies = append(node.Dependencies, dep)
		}
		nodes = append(nodes, node)
	}
	return nodes
}

// Options are what the page shows besides the graph.
type Options struct {
	// Landscape is the landscape's name, the page's title.
	Landscape string
	// Plan, when set, gives each component its planned action and counts; components the plan
	// has that the graph does not (removed from the landscape) are listed beside it.
	Plan *plan.Plan
}

// The page's data, embedded as JSON.
type pageData struct {
	Landscape string `json:"landscape"`
	Planned   bool   `json:"planned"`
	// Summary is the plan's summary line, with a plan only.
	Summary string     `json:"summary,omitempty"`
	Width   int        `json:"width"`
	Height  int        `json:"height"`
	Nodes   []pageNode `json:"nodes"`
	Edges   []pageEdge `json:"edges"`
	// Removed are planned components that are no longer in the landscape.
	Removed []removedComponent `json:"removed,omitempty"`
	Styles  []styleInfo        `json:"styles"`
}

type pageNode struct {
	Node
	X     int `json:"x"`
	Y     int `json:"y"`
	W     int `json:"w"`
	Layer int `json:"layer"`
	// Deps and Dependents are indices into the edges.
	Deps       []int `json:"deps"`
	Dependents []int `json:"dependents"`
	// Action, Changes and Note are what the plan does to the component, with a plan only;
	// "not planned" when the plan has no such component (a plan with --target).
	Action  string `json:"action,omitempty"`
	Changes string `json:"changes,omitempty"`
	Note    string `json:"note,omitempty"`
}

// removedComponent is a planned component whose block is no longer in the landscape.
type removedComponent struct {
	Address string `json:"address"`
	Action  string `json:"action"`
	Changes string `json:"changes,omitempty"`
}

type pageEdge struct {
	// From is the dependency and To the dependent (the direction apply flows), as node indices.
	From    int      `json:"from"`
	To      int      `json:"to"`
	Style   string   `json:"style"`
	Reasons []string `json:"reasons"`
}

type styleInfo struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// Write writes the page for the nodes, which must list every dependency before its dependents
// (graph order, as FromGraph does).
func Write(w io.Writer, nodes []Node, opts Options) error {
	data, err := build(nodes, opts)
	if err != nil {
		return err
	}
	js, err := json.Marshal(data) // escapes <, > and &, so the data cannot end its script element
	if err != nil {
		return fmt.Errorf("graph page: %w", err)
	}
	// The page is ASCII: JSON escapes control characters, but not bidi overrides and other
	// characters a terminal would act on if the page were printed to one; the data writes every
	// other character as \uXXXX, the title as a character reference, and control characters in
	// the title are dropped.
	title := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, "gardener graph: "+opts.Landscape)
	page := strings.NewReplacer(
		"{{title}}", asciiHTML(html.EscapeString(title)),
		"{{css}}", pageCSS,
		"{{data}}", asciiJSON(string(js)),
		"{{js}}", pageJS,
	).Replace(pageHTML)
	if _, err := io.WriteString(w, page); err != nil {
		return fmt.Errorf("graph page: %w", err)
	}
	return nil
}

// asciiJSON writes every rune of a JSON document that is not ASCII as a \u escape (two for runes
// beyond the Basic Multilingual Plane), which JSON strings allow; outside strings JSON is ASCII.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// asciiHTML writes every rune of HTML text that is not ASCII as a character reference.
func asciiHTML(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "&#x%x;", r)
		}
	}
	return b.String()
}

// Layout constants, in SVG units: a node's height, the gap between rows and between layers, and
// the width of a character of the labels' font (monospace, 12 units).
const (
	nodeHeight = 22
	rowGap     = 8
	layerGap   = 80
	charWidth  = 7.2
	padding    = 20
)

func build(nodes []Node, opts Options) (*pageData, error) {
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.Address] = i
	}
	data := &pageData{Landscape: opts.Landscape, Planned: opts.Plan != nil, Nodes: make([]pageNode, len(nodes)), Edges: []pageEdge{}}
	for _, s := range graph.Styles {
		data.Styles = append(data.Styles, styleInfo{Name: s.String(), Meaning: s.Meaning()})
	}
	for i, n := range nodes {
		data.Nodes[i] = pageNode{Node: n, Deps: []int{}, Dependents: []int{}}
	}
	for i, n := range nodes {
		for _, d := range n.Dependencies {
			j, ok := index[d.Address]
			if !ok || j >= i {
				return nil, fmt.Errorf("graph page: %s depends on %s, which does not come before it", n.Address, d.Address)
			}
			e := len(data.Edges)
			data.Edges = append(data.Edges, pageEdge{From: j, To: i, Style: d.Style.String(), Reasons: d.Reasons})
			data.Nodes[i].Deps = append(data.Nodes[i].Deps, e)
			data.Nodes[j].Dependents = append(data.Nodes[j].Dependents, e)
		}
	}
	labelExtra := 0
	if opts.Plan != nil {
		labelExtra = len("-/+ ") // the widest action symbol the label starts with
	}
	layout(data, labelExtra)
	if opts.Plan != nil {
		s := opts.Plan.Summary
		data.Summary = fmt.Sprintf("Plan: %d to add, %d to change, %d to replace, %d to destroy.", s.Add, s.Change, s.Replace, s.Destroy)
		for i := range data.Nodes {
			data.Nodes[i].Action = "not planned"
		}
		planned := map[string]*plan.Component{}
		for _, c := range opts.Plan.Components {
			planned[c.Address] = c
			if _, ok := index[c.Address]; !ok {
				data.Removed = append(data.Removed, removedComponent{Address: c.Address, Action: string(c.Action), Changes: countOf(c).String()})
			}
		}
		parts := map[string][]*plan.Component{}
		for _, n := range nodes {
			if c, ok := planned[n.Address]; ok && n.PartOf != "" {
				parts[n.PartOf] = append(parts[n.PartOf], c)
			}
		}
		for i := range data.Nodes {
			n := &data.Nodes[i]
			c, ok := planned[n.Address]
			if !ok {
				continue
			}
			count := countOf(c)
			n.Action, n.Note = string(c.Action), c.Note.String()
			if ps := parts[n.Address]; len(ps) > 0 && c.Action == plan.NoOp && count == (changeCount{}) {
				// A composite renders nothing of its own: it does what its parts do.
				n.Action, count = partsAction(ps), changeCount{}
				for _, p := range ps {
					count.plus(countOf(p))
				}
				n.Note = "the actions of its parts"
			}
			n.Changes = count.String()
		}
		slices.SortFunc(data.Removed, func(a, b removedComponent) int { return strings.Compare(a.Address, b.Address) })
	}
	return data, nil
}

// partsAction is what a composite does, by its parts' actions: no-op when they change nothing,
// their action when the parts that change agree (rendering some during apply aside), update
// otherwise, as plan.Plan.Summarise decides a component's action by its objects'.
func partsAction(parts []*plan.Component) string {
	actions := map[plan.Action]bool{}
	for _, p := range parts {
		if p.Action != plan.NoOp {
			actions[p.Action] = true
		}
	}
	if len(actions) > 1 {
		delete(actions, plan.Read)
	}
	switch len(actions) {
	case 0:
		return string(plan.NoOp)
	case 1:
		for a := range actions {
			return string(a)
		}
	}
	return string(plan.Update)
}

// changeCount counts the object changes of components.
type changeCount struct{ add, change, replace, destroy int }

func (c *changeCount) plus(o changeCount) {
	c.add += o.add
	c.change += o.change
	c.replace += o.replace
	c.destroy += o.destroy
}

// countOf counts the object changes of a component.
func countOf(c *plan.Component) changeCount {
	var n changeCount
	for _, o := range c.Objects {
		switch o.Action {
		case plan.Create:
			n.add++
		case plan.Update:
			n.change++
		case plan.Replace:
			n.replace++
		case plan.Delete:
			n.destroy++
		}
	}
	return n
}

// String says how many objects change, as the plan's summary line does ("2 to add, 1 to
// change"), leaving out the actions without any.
func (c changeCount) String() string {
	var parts []string
	for _, n := range []struct {
		count int
		what  string
	}{{c.add, "to add"}, {c.change, "to change"}, {c.replace, "to replace"}, {c.destroy, "to destroy"}} {
		if n.count > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	return strings.Join(parts, ", ")
}

// layout places the nodes in layers from left to right: a node's layer is one more than the
// highest layer of its dependencies, so every edge points right. Within a layer, nodes are
// ordered to keep edges short (a few sweeps of the barycenter heuristic, ties kept in graph
// order), then stacked top to bottom; each layer is as wide as its longest label, labelExtra
// characters included.
func layout(data *pageData, labelExtra int) {
	var layers [][]int
	for i := range data.Nodes {
		layer := 0
		for _, e := range data.Nodes[i].Deps {
			layer = max(layer, data.Nodes[data.Edges[e].From].Layer+1)
		}
		data.Nodes[i].Layer = layer
		for len(layers) <= layer {
			layers = append(layers, nil)
		}
		layers[layer] = append(layers[layer], i)
	}
	pos := make([]float64, len(data.Nodes))
	place := func() {
		for _, l := range layers {
			for r, i := range l {
				pos[i] = float64(r)
			}
		}
	}
	place()
	// barycenter is the mean position of a node's neighbours on one side; a node without any
	// keeps its own.
	barycenter := func(i int, edges []int, end func(pageEdge) int) float64 {
		if len(edges) == 0 {
			return pos[i]
		}
		sum := 0.0
		for _, e := range edges {
			sum += pos[end(data.Edges[e])]
		}
		return sum / float64(len(edges))
	}
	sortLayer := func(l []int, key func(int) float64) {
		keys := make(map[int]float64, len(l))
		for _, i := range l {
			keys[i] = key(i)
		}
		slices.SortStableFunc(l, func(a, b int) int {
			switch {
			case keys[a] < keys[b]:
				return -1
			case keys[a] > keys[b]:
				return 1
			}
			return 0
		})
		for r, i := range l {
			pos[i] = float64(r)
		}
	}
	for range 4 {
		for _, l := range layers[1:] {
			sortLayer(l, func(i int) float64 {
				return barycenter(i, data.Nodes[i].Deps, func(e pageEdge) int { return e.From })
			})
		}
		for k := len(layers) - 2; k >= 0; k-- {
			sortLayer(layers[k], func(i int) float64 {
				return barycenter(i, data.Nodes[i].Dependents, func(e pageEdge) int { return e.To })
			})
		}
	}
	x := padding
	for _, l := range layers {
		width := 0
		for _, i := range l {
			width = max(width, int(float64(len(data.Nodes[i].Address)+labelExtra)*charWidth)+16)
		}
		for r, i := range l {
			n := &data.Nodes[i]
			n.X, n.Y, n.W = x, padding+r*(nodeHeight+rowGap), width
			data.Height = max(data.Height, n.Y+nodeHeight+padding)
		}
		x += width + layerGap
	}
	data.Width = x - layerGap + padding
	data.Height = max(data.Height, 2*padding)
}
