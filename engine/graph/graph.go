package graph

import (
	"cmp"
	"fmt"
	"slices"

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
//
// Vertices are numbered in Less order when the graph is built, so that every sort and every
// tie-break afterwards compares numbers: building a graph parses each address once, not at each
// of the O(n log n) comparisons, and holds neighbours as numbers, not addresses.
type Graph struct {
	// addrs are the vertices by number; ids numbers them.
	addrs []config.InstanceAddress
	ids   map[config.InstanceAddress]vertex
	// blockOf is each vertex's block, empty for composites' parts; kinds is each vertex's rank
	// in kindRank.
	blockOf []config.Address
	kinds   []int
	// instances are the vertices' instances; nil for graphs built without a landscape (tests).
	instances map[config.InstanceAddress]*config.Instance
	// blocks lists every block's instances, including blocks that expanded to none, so that a
	// target naming a block resolves.
	blocks map[config.Address][]config.InstanceAddress
	// edges are every edge, sorted as Edges lists them; edgeTo is each one's To by number, and
	// the edges from vertex v are edges[edgeStart[v]:edgeStart[v+1]], so that a vertex's edges
	// and the reasons of one pair are found without a map of all pairs.
	edges     []Edge
	edgeTo    []vertex
	edgeStart []int
	// deps and dependents are the sorted neighbours of each vertex; deletion lists, for each,
	// what it is deleted after: its dependents, but those following it, and what it follows.
	deps, dependents, deletion [][]vertex
	order, reverse             []vertex
	// parts lists the parts of each composite instance, and partOf each part's composite.
	parts  map[config.InstanceAddress][]config.InstanceAddress
	partOf map[config.InstanceAddress]config.InstanceAddress
}

// vertex is a vertex's number: its position in Less order.
type vertex = int32

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
	references := referenceEdges(ev.Landscape, blocks)
	edges := make([]Edge, 0, len(references)+len(implicit))
	edges = append(append(edges, references...), implicit...)
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
		for _, p := range parts {
			g.parts[p.Parent] = append(g.parts[p.Parent], p.Addr)
			g.partOf[p.Addr] = p.Parent
		}
		for _, ps := range g.parts {
			slices.SortFunc(ps, g.compareAddr)
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
	isPart := make(map[config.InstanceAddress]bool, len(parts))
	outgoing := map[config.InstanceAddress][]int{} // the composites' edges, by index
	for _, p := range parts {
		isPart[p.Addr] = true
		outgoing[p.Parent] = nil
	}
	for i, e := range edges {
		if out, composite := outgoing[e.From]; composite {
			outgoing[e.From] = append(out, i)
		}
	}
	out := make([]Edge, 0, 2*len(parts))
	inOrder := map[config.InstanceAddress]string{} // the reason of the edges between a composite's parts
	for _, p := range parts {
		if !p.Detached {
			out = append(out, Edge{From: p.Parent, To: p.Addr, Reason: "it is made of this part"})
		}
		if len(p.DependsOn) > 0 && inOrder[p.Parent] == "" {
			inOrder[p.Parent] = fmt.Sprintf("%s applies its parts in this order", p.Parent)
		}
		for _, d := range p.DependsOn {
			out = append(out, Edge{From: p.Addr, To: d, Reason: inOrder[p.Parent]})
		}
		if len(p.DependsOn) > 0 {
			continue
		}
		for _, i := range outgoing[p.Parent] {
			e := edges[i]
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
// inside one component is apply's job. It takes time linear in the vertices and edges, but for
// sorting the vertices once.
func newGraph(blocks map[config.Address][]config.InstanceAddress, extra []config.InstanceAddress, edges []Edge) (*Graph, hcl.Diagnostics) {
	g := &Graph{
		blocks: make(map[config.Address][]config.InstanceAddress, len(blocks)),
		parts:  map[config.InstanceAddress][]config.InstanceAddress{},
		partOf: map[config.InstanceAddress]config.InstanceAddress{},
	}
	g.number(blocks, extra)
	for b, insts := range blocks {
		insts = slices.Clone(insts)
		slices.SortFunc(insts, g.compareAddr)
		g.blocks[b] = insts
	}
	diags := g.connect(edges)
	if diags = append(diags, g.cycles()...); diags.HasErrors() {
		return nil, diags
	}
	g.order = topoSort(g.deps, g.dependents, nil)
	g.deletion = g.deletionDependencies()
	g.reverse = topoSort(g.deletion, transpose(g.deletion), g.reversePriority())
	if d := g.followedByOthers(); d != nil {
		return nil, append(diags, d)
	}
	return g, diags
}

// connect adds the edges: sorted by their From's number (a bucket per vertex), each vertex's
// edges sorted as Edges lists them, duplicates dropped. Edges from an instance to itself are
// dropped; an edge naming an instance the graph does not have is a diagnostic.
func (g *Graph) connect(edges []Edge) hcl.Diagnostics {
	n := len(g.addrs)
	type placed struct {
		from, to vertex
		edge     *Edge
	}
	var diags hcl.Diagnostics
	valid := make([]placed, 0, len(edges))
	count := make([]int, n+1)
	for i := range edges {
		e := &edges[i]
		if e.From == e.To {
			continue
		}
		from, to, d := g.ends(*e)
		if d != nil {
			diags = append(diags, d)
			continue
		}
		valid = append(valid, placed{from: from, to: to, edge: e})
		count[from+1]++
	}
	g.edgeStart = count
	for v := range n {
		g.edgeStart[v+1] += g.edgeStart[v]
	}
	byFrom := make([]placed, len(valid))
	next := slices.Clone(g.edgeStart[:n])
	for _, p := range valid {
		byFrom[next[p.from]] = p
		next[p.from]++
	}
	g.edges = make([]Edge, 0, len(valid))
	g.edgeTo = make([]vertex, 0, len(valid))
	g.deps, g.dependents = make([][]vertex, n), make([][]vertex, n)
	for v := range n {
		bucket := byFrom[g.edgeStart[v]:g.edgeStart[v+1]]
		slices.SortFunc(bucket, func(a, b placed) int {
			return cmp.Or(cmp.Compare(a.to, b.to), compareEdges(*a.edge, *b.edge, func(config.InstanceAddress, config.InstanceAddress) int { return 0 }))
		})
		g.edgeStart[v] = len(g.edges)
		pair := len(g.edges) // where the current (v, to) pair's edges start
		for _, p := range bucket {
			if len(g.edgeTo) > pair && g.edgeTo[pair] != p.to {
				pair = len(g.edges)
			}
			if len(g.edges) == pair { // the pair's first edge
				g.deps[v] = append(g.deps[v], p.to)
				g.dependents[p.to] = append(g.dependents[p.to], vertex(v)) // sorted, since v grows
			} else if slices.ContainsFunc(g.edges[pair:], func(o Edge) bool { return sameEdge(o, *p.edge) }) {
				continue
			}
			g.edges = append(g.edges, *p.edge)
			g.edgeTo = append(g.edgeTo, p.to)
		}
	}
	g.edgeStart[n] = len(g.edges)
	return diags
}

// between lists the edges from depends on to, sorted; nil when it does not.
func (g *Graph) between(from, to vertex) []Edge {
	if from < 0 || to < 0 {
		return nil
	}
	lo, hi := g.edgeStart[from], g.edgeStart[from+1]
	i, found := slices.BinarySearch(g.edgeTo[lo:hi], to)
	if !found {
		return nil
	}
	j := lo + i
	for j < hi && g.edgeTo[j] == to {
		j++
	}
	return g.edges[lo+i : j]
}

// number gives every instance (and part) its number: its position in Less order, each address
// parsed once. An address listed twice is one vertex.
func (g *Graph) number(blocks map[config.Address][]config.InstanceAddress, extra []config.InstanceAddress) {
	type entry struct {
		addr  config.InstanceAddress
		block config.Address
		key   sortKey
	}
	all := make([]entry, 0, len(extra)+len(blocks))
	for b, insts := range blocks {
		for _, a := range insts {
			all = append(all, entry{addr: a, block: b, key: keyOf(a)})
		}
	}
	for _, a := range extra {
		all = append(all, entry{addr: a, key: keyOf(a)})
	}
	slices.SortFunc(all, func(a, b entry) int {
		return cmp.Or(compare(a.key, b.key), cmp.Compare(a.addr, b.addr), cmp.Compare(b.block, a.block))
	})
	all = slices.CompactFunc(all, func(a, b entry) bool { return a.addr == b.addr })
	g.addrs = make([]config.InstanceAddress, len(all))
	g.blockOf = make([]config.Address, len(all))
	g.kinds = make([]int, len(all))
	g.ids = make(map[config.InstanceAddress]vertex, len(all))
	for i, e := range all {
		g.addrs[i], g.blockOf[i], g.kinds[i] = e.addr, e.block, e.key.rank
		g.ids[e.addr] = vertex(i)
	}
}

// reversePriority is ReverseOrder's tie-break as each vertex's position: components first, then
// shoots, seeds and the garden (the reverse of how a landscape is built), in Less order within a
// kind so that addresses still read top-down.
func (g *Graph) reversePriority() []vertex {
	byPriority := make([]vertex, len(g.addrs))
	for i := range byPriority {
		byPriority[i] = vertex(i)
	}
	slices.SortStableFunc(byPriority, func(a, b vertex) int { return cmp.Compare(g.kinds[b], g.kinds[a]) })
	priority := make([]vertex, len(byPriority))
	for pos, v := range byPriority {
		priority[v] = vertex(pos)
	}
	return priority
}

// transpose turns each vertex's list of what it comes after into the list of what comes after
// it, sorted.
func transpose(before [][]vertex) [][]vertex {
	after := make([][]vertex, len(before))
	for v, ps := range before {
		for _, p := range ps {
			after[p] = append(after[p], vertex(v))
		}
	}
	return after
}

// deletionDependencies lists, for each instance, what it is deleted after: its dependents, as
// destroy goes, except where it is followed (a Follows edge, which keeps its direction).
func (g *Graph) deletionDependencies() [][]vertex {
	out := make([][]vertex, len(g.addrs))
	for from, tos := range g.deps {
		for _, to := range tos {
			if g.followsOnly(vertex(from), to) {
				out[from] = append(out[from], to)
			} else {
				out[to] = append(out[to], vertex(from))
			}
		}
	}
	for _, ns := range out {
		slices.Sort(ns)
	}
	return out
}

// followsOnly reports whether every reason from depends on to is a Follows edge.
func (g *Graph) followsOnly(from, to vertex) bool {
	es := g.between(from, to)
	for _, e := range es {
		if e.Kind != Follows {
			return false
		}
	}
	return len(es) > 0
}

// followedByOthers reports the first instance (in Less order) with a Follows edge that something
// depends on: deleting it after what it follows could then wait for itself.
func (g *Graph) followedByOthers() *hcl.Diagnostic {
	for from, tos := range g.deps {
		for _, to := range tos {
			if !g.followsOnly(vertex(from), to) || len(g.dependents[from]) == 0 {
				continue
			}
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Dependency on a component that follows another",
				Detail: fmt.Sprintf("%s follows %s (%s), so nothing may depend on it, but %s does.",
					g.addrs[from], g.addrs[to], g.between(vertex(from), to)[0].Reason, g.addrs[g.dependents[from][0]]),
			}
		}
	}
	return nil
}

// ends numbers an edge's ends, or reports an end the graph does not have; only implicit edges
// can name one, when the caller derived them from something other than this landscape.
func (g *Graph) ends(e Edge) (from, to vertex, d *hcl.Diagnostic) {
	from, okFrom := g.ids[e.From]
	to, okTo := g.ids[e.To]
	if okFrom && okTo {
		return from, to, nil
	}
	end := e.From
	if okFrom {
		end = e.To
	}
	return 0, 0, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Dependency on an unknown component",
		Detail:   fmt.Sprintf("An edge from %s to %s (%s) names %s, which the landscape does not declare.", e.From, e.To, e.Reason, end),
		Subject:  e.Range,
	}
}

func sameEdge(a, b Edge) bool {
	return a.Kind == b.Kind && a.Reason == b.Reason && sameRange(a.Range, b.Range)
}

func sameRange(a, b *hcl.Range) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func compareAddr(a, b config.InstanceAddress) int { return compare(keyOf(a), keyOf(b)) }

// compareAddr compares two of the graph's vertices as Less does, by their numbers.
func (g *Graph) compareAddr(a, b config.InstanceAddress) int { return cmp.Compare(g.ids[a], g.ids[b]) }

// compareEdge sorts a graph's edges as compareEdges does, comparing ends by their numbers.
func (g *Graph) compareEdge(a, b Edge) int { return compareEdges(a, b, g.compareAddr) }

// compareEdges sorts edges by their ends (by compareAddr), then references before depends_on
// before implicit edges, then by where they are written and why.
func compareEdges(a, b Edge, compareAddr func(a, b config.InstanceAddress) int) int {
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

// addrsOf turns vertices into their addresses, in a new slice.
func (g *Graph) addrsOf(vs []vertex) []config.InstanceAddress {
	if vs == nil {
		return nil
	}
	out := make([]config.InstanceAddress, len(vs))
	for i, v := range vs {
		out[i] = g.addrs[v]
	}
	return out
}

// neighbours are the vertices lists holds for addr; nil for an address the graph does not have.
func (g *Graph) neighbours(lists [][]vertex, addr config.InstanceAddress) []config.InstanceAddress {
	v, ok := g.ids[addr]
	if !ok {
		return nil
	}
	return g.addrsOf(lists[v])
}

// Has reports whether addr is an instance of the graph.
func (g *Graph) Has(addr config.InstanceAddress) bool {
	_, ok := g.ids[addr]
	return ok
}

// Len is the number of instances.
func (g *Graph) Len() int { return len(g.order) }

// Instance returns the evaluated instance at addr, or nil.
func (g *Graph) Instance(addr config.InstanceAddress) *config.Instance { return g.instances[addr] }

// Order lists every instance after all its dependencies. Among instances whose dependencies
// are all listed, the least by Less comes next, so the order is the same on every run and reads
// garden, seeds, shoots, components wherever the edges allow.
func (g *Graph) Order() []config.InstanceAddress { return g.addrsOf(g.order) }

// ReverseOrder lists every instance before all its dependencies (after what it follows, see
// Follows), the order destroy deletes in.
// Among instances whose dependents are all listed, components come first, then shoots, seeds
// and the garden, by address within a kind.
func (g *Graph) ReverseOrder() []config.InstanceAddress { return g.addrsOf(g.reverse) }

// Dependencies lists what addr must be applied after, directly, sorted by Less.
func (g *Graph) Dependencies(addr config.InstanceAddress) []config.InstanceAddress {
	return g.neighbours(g.deps, addr)
}

// Dependents lists what must be applied after addr, directly, sorted by Less.
func (g *Graph) Dependents(addr config.InstanceAddress) []config.InstanceAddress {
	return g.neighbours(g.dependents, addr)
}

// RemovalDependencies are the dependencies the state records for addr, from which the deletion
// of components whose blocks were removed is ordered (each before what it depended on): its
// dependencies, with Follows edges turned around, so that removal deletes in DeletionDependencies'
// order too.
func (g *Graph) RemovalDependencies(addr config.InstanceAddress) []config.InstanceAddress {
	v, ok := g.ids[addr]
	if !ok {
		return nil
	}
	var out []vertex
	for _, list := range [][]vertex{g.deps[v], g.dependents[v]} {
		for _, a := range list {
			if !slices.Contains(g.deletion[v], a) {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return g.addrsOf(out)
}

// DeletionDependencies lists what addr is deleted after, directly: its dependents, except those
// that follow it, and what it follows (see Follows); sorted by Less.
func (g *Graph) DeletionDependencies(addr config.InstanceAddress) []config.InstanceAddress {
	return g.neighbours(g.deletion, addr)
}

// EdgesBetween lists every reason from depends on to, directly; empty when it does not.
func (g *Graph) EdgesBetween(from, to config.InstanceAddress) []Edge {
	return slices.Clone(g.between(g.idOf(from), g.idOf(to)))
}

// idOf is addr's number, or -1 for an address the graph does not have.
func (g *Graph) idOf(addr config.InstanceAddress) vertex {
	if v, ok := g.ids[addr]; ok {
		return v
	}
	return -1
}

// Edges lists every edge, sorted by From and To in Order's tie-break, then by kind and source.
func (g *Graph) Edges() []Edge {
	return slices.Clone(g.edges)
}
