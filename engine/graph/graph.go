package graph

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/config"
)

// EdgeKind says where an edge comes from; views style implicit edges differently, and a cycle
// diagnostic points at the source of reference edges but can only quote the reason of implicit
// ones.
type EdgeKind int

// The kinds of edges. Implicit is the zero value, so that callers building implicit edges need
// not name it.
const (
	// Implicit edges are given by the caller, typically derived from rendered objects.
	Implicit EdgeKind = iota
	// Reference edges come from an expression of From referring to To, directly or through
	// locals and clusters.
	Reference
	// DependsOn edges come from From's depends_on.
	DependsOn
	// Follows edges are given by the caller for an instance whose objects follow an object
	// another controller creates once To's objects exist (render.Await): From is applied after
	// To, like any edge, but deleted after To too, since that object goes only once To's are
	// gone. Nothing may depend on such an instance: it is where the chain ends.
	Follows
)

// String is the kind's name in views and diagnostics.
func (k EdgeKind) String() string {
	switch k {
	case Reference:
		return "reference"
	case DependsOn:
		return "depends_on"
	case Follows:
		return "follows"
	default:
		return "implicit"
	}
}

// Edge says that From must be applied after To, and why.
type Edge struct {
	From, To config.InstanceAddress
	// Reason completes "From depends on To:" for people, e.g. `refers to seed.local` or
	// `objects in namespace "garden" need their Namespace`.
	Reason string
	Kind   EdgeKind
	// Range is where the reference or depends_on entry closing the edge is written; nil for
	// implicit edges.
	Range *hcl.Range
}

// Graph is the component DAG of a landscape. It is immutable once built, so that plan, apply
// and the views can share it.
type Graph struct {
	g graph.Graph[config.InstanceAddress, config.InstanceAddress]
	// instances are the vertices' instances; nil for graphs built without a landscape (tests).
	instances map[config.InstanceAddress]*config.Instance
	// blocks lists every block's instances, including blocks that expanded to none, so that a
	// target naming a block resolves.
	blocks map[config.Address][]config.InstanceAddress
	// edges holds every reason per (from, to) pair, sorted.
	edges map[[2]config.InstanceAddress][]Edge
	// deps and dependents are the sorted neighbours of each vertex; deletion lists, for each,
	// what it is deleted after: its dependents, but those following it, and what it follows.
	deps, dependents, deletion map[config.InstanceAddress][]config.InstanceAddress
	order, reverse             []config.InstanceAddress
	// parts lists the parts of each composite instance.
	parts map[config.InstanceAddress][]config.InstanceAddress
}

// Build makes the component graph of an evaluated landscape: every instance, the edges its
// references and depends_on give, and the implicit edges the caller passes (nil is fine).
// It reports a cycle, or an implicit edge naming an instance the landscape does not have, as
// diagnostics and then returns a nil graph.
func Build(ev *config.Evaluated, implicit []Edge, parts ...Part) (*Graph, hcl.Diagnostics) {
	instances := map[config.InstanceAddress]*config.Instance{}
	blocks := map[config.Address][]config.InstanceAddress{}
	for addr := range ev.Landscape.Blocks {
		blocks[addr] = nil
	}
	for addr, inst := range ev.Instances {
		instances[addr] = inst
		blocks[inst.Block.Addr] = append(blocks[inst.Block.Addr], addr)
	}
	edges := append(referenceEdges(ev.Landscape, blocks), implicit...)
	edges = append(edges, partEdges(edges, parts)...)
	edges = narrowComposites(edges, parts)
	var extra []config.InstanceAddress
	for _, p := range parts {
		extra = append(extra, p.Addr)
		// A part is configured by its composite's block: lifecycle settings, the source range.
		instances[p.Addr] = instances[p.Parent]
	}
	g, diags := newGraph(blocks, extra, edges)
	if g != nil {
		g.instances = instances
		g.parts = map[config.InstanceAddress][]config.InstanceAddress{}
		for _, p := range parts {
			g.parts[p.Parent] = append(g.parts[p.Parent], p.Addr)
		}
	}
	return g, diags
}

// Part is a part of a composite instance (garden, seed, shoot): rendering expands composites to
// parts that are vertices of their own, applied in the order DependsOn gives.
type Part struct {
	Addr, Parent config.InstanceAddress
	// DependsOn are sibling parts this one comes after.
	DependsOn []config.InstanceAddress
	// Detached parts are not waited for by the composite, and so not by what depends on it.
	Detached bool
}

// partEdges are the edges parts add: the composite depends on each of its parts but the detached
// ones (it is done when they are, and whatever depends on it waits for all of them), each part on the siblings
// it names, and each part without siblings to wait for inherits the composite's own
// dependencies, so that a garden's first part still comes after what the garden refers to.
func partEdges(edges []Edge, parts []Part) []Edge {
	isPart := map[config.InstanceAddress]bool{}
	for _, p := range parts {
		isPart[p.Addr] = true
	}
	outgoing := map[config.InstanceAddress][]Edge{}
	for _, e := range edges {
		outgoing[e.From] = append(outgoing[e.From], e)
	}
	var out []Edge
	for _, p := range parts {
		if !p.Detached {
			out = append(out, Edge{From: p.Parent, To: p.Addr, Reason: "it is made of this part"})
		}
		for _, d := range p.DependsOn {
			out = append(out, Edge{From: p.Addr, To: d, Reason: fmt.Sprintf("%s applies its parts in this order", p.Parent)})
		}
		if len(p.DependsOn) > 0 {
			continue
		}
		for _, e := range outgoing[p.Parent] {
			if isPart[e.To] {
				continue
			}
			e.From = p.Addr
			e.Reason = fmt.Sprintf("%s (as part of %s)", e.Reason, p.Parent)
			out = append(out, e)
		}
	}
	return out
}

// Parts lists the parts of a composite instance, sorted; nil for any other instance.
func (g *Graph) Parts(addr config.InstanceAddress) []config.InstanceAddress {
	return slices.Clone(g.parts[addr])
}

// newGraph builds a graph over the instances listed in blocks and the extra ones (composites'
// parts) with the given edges. Implicit edges from an instance to itself are dropped: ordering
// inside one component is apply's job.
func newGraph(blocks map[config.Address][]config.InstanceAddress, extra []config.InstanceAddress, edges []Edge) (*Graph, hcl.Diagnostics) {
	g := &Graph{
		g:          graph.New(func(a config.InstanceAddress) config.InstanceAddress { return a }, graph.Directed()),
		blocks:     map[config.Address][]config.InstanceAddress{},
		edges:      map[[2]config.InstanceAddress][]Edge{},
		deps:       map[config.InstanceAddress][]config.InstanceAddress{},
		dependents: map[config.InstanceAddress][]config.InstanceAddress{},
		deletion:   map[config.InstanceAddress][]config.InstanceAddress{},
	}
	var nodes []config.InstanceAddress
	for b, insts := range blocks {
		insts = slices.Clone(insts)
		slices.SortFunc(insts, compareAddr)
		g.blocks[b] = insts
		for _, n := range insts {
			_ = g.g.AddVertex(n) // the in-memory store fails only on duplicates, which blocks cannot hold
			nodes = append(nodes, n)
		}
	}
	for _, n := range extra {
		_ = g.g.AddVertex(n)
		nodes = append(nodes, n)
	}
	var diags hcl.Diagnostics
	for _, e := range edges {
		if e.From == e.To {
			continue
		}
		if d := g.checkEnds(e); d != nil {
			diags = append(diags, d)
			continue
		}
		key := [2]config.InstanceAddress{e.From, e.To}
		if slices.ContainsFunc(g.edges[key], func(o Edge) bool { return sameEdge(o, e) }) {
			continue
		}
		if len(g.edges[key]) == 0 {
			_ = g.g.AddEdge(e.From, e.To) // both vertices exist and the edge is new
			g.deps[e.From] = append(g.deps[e.From], e.To)
			g.dependents[e.To] = append(g.dependents[e.To], e.From)
		}
		g.edges[key] = append(g.edges[key], e)
	}
	for _, es := range g.edges {
		slices.SortFunc(es, compareEdge)
	}
	for _, m := range []map[config.InstanceAddress][]config.InstanceAddress{g.deps, g.dependents} {
		for _, ns := range m {
			slices.SortFunc(ns, compareAddr)
		}
	}
	if diags = append(diags, g.cycles()...); diags.HasErrors() {
		return nil, diags
	}
	g.order = topoSort(nodes, g.deps, Less)
	g.deletion = g.deletionDependencies()
	g.reverse = topoSort(nodes, g.deletion, reverseLess)
	if d := g.followedByOthers(); d != nil {
		return nil, append(diags, d)
	}
	return g, diags
}

// deletionDependencies lists, for each instance, what it is deleted after: its dependents, as
// destroy goes, except where it is followed (a Follows edge, which keeps its direction).
func (g *Graph) deletionDependencies() map[config.InstanceAddress][]config.InstanceAddress {
	out := map[config.InstanceAddress][]config.InstanceAddress{}
	for key := range g.edges {
		from, to := key[0], key[1]
		if g.followsOnly(from, to) {
			out[from] = append(out[from], to)
		} else {
			out[to] = append(out[to], from)
		}
	}
	for _, ns := range out {
		slices.SortFunc(ns, compareAddr)
	}
	return out
}

// followsOnly reports whether every reason from depends on to is a Follows edge.
func (g *Graph) followsOnly(from, to config.InstanceAddress) bool {
	es := g.edges[[2]config.InstanceAddress{from, to}]
	for _, e := range es {
		if e.Kind != Follows {
			return false
		}
	}
	return len(es) > 0
}

// followedByOthers reports an instance with a Follows edge that something depends on: deleting
// it after what it follows could then wait for itself.
func (g *Graph) followedByOthers() *hcl.Diagnostic {
	for key := range g.edges {
		if !g.followsOnly(key[0], key[1]) || len(g.dependents[key[0]]) == 0 {
			continue
		}
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency on a component that follows another",
			Detail: fmt.Sprintf("%s follows %s (%s), so nothing may depend on it, but %s does.",
				key[0], key[1], g.edges[key][0].Reason, g.dependents[key[0]][0]),
		}
	}
	return nil
}

// checkEnds reports an edge naming an instance the graph does not have; only implicit edges
// can, when the caller derived them from something other than this landscape.
func (g *Graph) checkEnds(e Edge) *hcl.Diagnostic {
	for _, end := range []config.InstanceAddress{e.From, e.To} {
		if !g.Has(end) {
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Dependency on an unknown component",
				Detail:   fmt.Sprintf("An edge from %s to %s (%s) names %s, which the landscape does not declare.", e.From, e.To, e.Reason, end),
				Subject:  e.Range,
			}
		}
	}
	return nil
}

func sameEdge(a, b Edge) bool {
	return a.Kind == b.Kind && a.Reason == b.Reason && rangeString(a.Range) == rangeString(b.Range)
}

func rangeString(r *hcl.Range) string {
	if r == nil {
		return ""
	}
	return r.String()
}

func compareAddr(a, b config.InstanceAddress) int { return compare(keyOf(a), keyOf(b)) }

// compareEdge sorts edges by their ends, then references before depends_on before implicit
// edges, then by where they are written and why.
func compareEdge(a, b Edge) int {
	if c := compareAddr(a.From, b.From); c != 0 {
		return c
	}
	if c := compareAddr(a.To, b.To); c != 0 {
		return c
	}
	rank := func(k EdgeKind) int { // reference, depends_on, implicit, follows
		switch k {
		case Reference:
			return 0
		case DependsOn:
			return 1
		case Implicit:
			return 2
		}
		return 3
	}
	if c := cmp.Compare(rank(a.Kind), rank(b.Kind)); c != 0 {
		return c
	}
	if a.Range != nil && b.Range != nil {
		if c := cmp.Compare(a.Range.Filename, b.Range.Filename); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Range.Start.Byte, b.Range.Start.Byte); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Reason, b.Reason)
}

// Has reports whether addr is an instance of the graph.
func (g *Graph) Has(addr config.InstanceAddress) bool {
	_, err := g.g.Vertex(addr)
	return err == nil
}

// Len is the number of instances.
func (g *Graph) Len() int { return len(g.order) }

// Instance returns the evaluated instance at addr, or nil.
func (g *Graph) Instance(addr config.InstanceAddress) *config.Instance { return g.instances[addr] }

// Order lists every instance after all its dependencies. Among instances whose dependencies
// are all listed, the least by Less comes next, so the order is the same on every run and reads
// garden, seeds, shoots, components wherever the edges allow.
func (g *Graph) Order() []config.InstanceAddress { return slices.Clone(g.order) }

// ReverseOrder lists every instance before all its dependencies (after what it follows, see
// Follows), the order destroy deletes in.
// Among instances whose dependents are all listed, components come first, then shoots, seeds
// and the garden, by address within a kind.
func (g *Graph) ReverseOrder() []config.InstanceAddress { return slices.Clone(g.reverse) }

// Dependencies lists what addr must be applied after, directly, sorted by Less.
func (g *Graph) Dependencies(addr config.InstanceAddress) []config.InstanceAddress {
	return slices.Clone(g.deps[addr])
}

// Dependents lists what must be applied after addr, directly, sorted by Less.
func (g *Graph) Dependents(addr config.InstanceAddress) []config.InstanceAddress {
	return slices.Clone(g.dependents[addr])
}

// RemovalDependencies are the dependencies the state records for addr, from which the deletion
// of components whose blocks were removed is ordered (each before what it depended on): its
// dependencies, with Follows edges turned around, so that removal deletes in DeletionDependencies'
// order too.
func (g *Graph) RemovalDependencies(addr config.InstanceAddress) []config.InstanceAddress {
	var out []config.InstanceAddress
	for _, list := range [][]config.InstanceAddress{g.deps[addr], g.dependents[addr]} {
		for _, a := range list {
			if !slices.Contains(g.deletion[addr], a) {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, compareAddr)
	return out
}

// DeletionDependencies lists what addr is deleted after, directly: its dependents, except those
// that follow it, and what it follows (see Follows); sorted by Less.
func (g *Graph) DeletionDependencies(addr config.InstanceAddress) []config.InstanceAddress {
	return slices.Clone(g.deletion[addr])
}

// EdgesBetween lists every reason from depends on to, directly; empty when it does not.
func (g *Graph) EdgesBetween(from, to config.InstanceAddress) []Edge {
	return slices.Clone(g.edges[[2]config.InstanceAddress{from, to}])
}

// Edges lists every edge, sorted by From and To in Order's tie-break, then by kind and source.
func (g *Graph) Edges() []Edge {
	var out []Edge
	for _, es := range g.edges {
		out = append(out, es...)
	}
	slices.SortFunc(out, compareEdge)
	return out
}
