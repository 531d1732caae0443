package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/declarative-gardener/gardener/engine/config"
)

// narrowComposites lets an instance that refers to a composite wait for the composite's parts
// except those that wait for the instance themselves. An edge to a composite means "after all of
// its parts", which closes a cycle as soon as one part needs the referring instance: an
// extension names its seed (seeds = [{ name = seed.local.name, ... }]) to be installed there,
// while the seed's Seed object needs the extension's ControllerRegistration, because
// gardener-apiserver refuses a Seed whose types nobody registers. Such an edge is replaced by
// edges to every other part the composite waits for: the extension comes after the seed's
// system components and gardenlet, the Seed after the extension, and whatever refers to the
// seed still waits for all of it, the Seed included. Deleting runs the other way: the Seed
// goes before the extension, the extension before the seed's system components.
//
// Only an edge to a composite one of whose parts (one the composite waits for) needs the
// referring instance directly, by an edge of its own, is touched: that part cannot come before
// the instance in any order, and neither can the parts that wait for it. A landscape without
// such a pair keeps exactly its edges, at the cost of one pass over them; cycles this does not
// resolve (a part that needs the referring instance only by way of something else, which may in
// turn need the part) are reported by newGraph as before. The result reuses edges' storage.
func narrowComposites(edges []Edge, parts []Part) []Edge {
	candidates := directNeeds(edges, parts)
	if len(candidates) == 0 {
		return edges
	}
	partsOf := map[config.InstanceAddress][]Part{}
	for _, p := range parts {
		partsOf[p.Parent] = append(partsOf[p.Parent], p)
	}
	g := indexEdges(edges)
	component := stronglyConnected(g.deps)
	out := edges[:0] // edges are kept or replaced in place, the replacements appended
	var replacements []Edge
	for _, e := range edges {
		key := [2]config.InstanceAddress{e.From, e.To}
		cut, candidate := candidates[key]
		if !candidate {
			out = append(out, e)
			continue
		}
		if cut == nil { // the first edge of this pair: find the parts that wait for e.From
			cut = []config.InstanceAddress{}
			from, to := g.id[e.From], g.id[e.To]
			if component[from] == component[to] {
				waiting := g.reaching(from, to, component)
				for _, p := range partsOf[e.To] {
					if id, ok := g.id[p.Addr]; ok && waiting[id] && !p.Detached {
						cut = append(cut, p.Addr)
					}
				}
				slices.SortFunc(cut, compareAddr)
			}
			candidates[key] = cut
		}
		if len(cut) == 0 {
			out = append(out, e)
			continue
		}
		names := make([]string, len(cut))
		for i, c := range cut {
			names[i] = string(c)
		}
		verb := "waits"
		if len(names) > 1 {
			verb = "wait"
		}
		reason := fmt.Sprintf("%s, whose parts it waits for but %s, which %s for it", e.Reason, strings.Join(names, ", "), verb)
		for _, p := range partsOf[e.To] {
			if p.Detached || slices.Contains(cut, p.Addr) {
				continue
			}
			n := e
			n.To, n.Reason = p.Addr, reason
			replacements = append(replacements, n)
		}
	}
	return append(out, replacements...)
}

// directNeeds finds the (instance, composite) pairs to narrow: the instance depends on the
// composite (and is not its part), and a part the composite waits for depends on the instance.
// The values are nil, for narrowComposites to fill in.
func directNeeds(edges []Edge, parts []Part) map[[2]config.InstanceAddress][]config.InstanceAddress {
	if len(parts) == 0 {
		return nil
	}
	parentOf := make(map[config.InstanceAddress]config.InstanceAddress, len(parts))
	for _, p := range parts {
		if !p.Detached {
			parentOf[p.Addr] = p.Parent
		}
	}
	composites := map[config.InstanceAddress]bool{}
	for _, p := range parts {
		composites[p.Parent] = true
	}
	intoComposite := map[[2]config.InstanceAddress]bool{}
	for _, e := range edges {
		if composites[e.To] && e.From != e.To {
			intoComposite[[2]config.InstanceAddress{e.From, e.To}] = true
		}
	}
	var out map[[2]config.InstanceAddress][]config.InstanceAddress
	for _, e := range edges {
		composite, isPart := parentOf[e.From]
		if !isPart || composite == e.To || parentOf[e.To] == composite {
			continue
		}
		if key := [2]config.InstanceAddress{e.To, composite}; intoComposite[key] {
			if out == nil {
				out = map[[2]config.InstanceAddress][]config.InstanceAddress{}
			}
			out[key] = nil
		}
	}
	return out
}

// indexed is the edges' graph with instances numbered, for the linear-time walks below.
type indexed struct {
	id               map[config.InstanceAddress]vertex
	deps, dependents [][]vertex
}

func indexEdges(edges []Edge) *indexed {
	g := &indexed{id: map[config.InstanceAddress]vertex{}}
	var next vertex
	idOf := func(a config.InstanceAddress) vertex {
		if i, ok := g.id[a]; ok {
			return i
		}
		i := next
		next++
		g.id[a] = i
		g.deps = append(g.deps, nil)
		g.dependents = append(g.dependents, nil)
		return i
	}
	for _, e := range edges {
		if e.From == e.To {
			continue
		}
		from, to := idOf(e.From), idOf(e.To)
		g.deps[from] = append(g.deps[from], to)
		g.dependents[to] = append(g.dependents[to], from)
	}
	return g
}

// reaching marks the instances with a path to target that does not pass through avoid, among
// those in target's strongly connected component (any instance on a cycle through target is).
func (g *indexed) reaching(target, avoid vertex, component []int) []bool {
	seen := make([]bool, len(g.deps))
	seen[target] = true
	queue := []vertex{target}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range g.dependents[n] {
			if d == avoid || seen[d] || component[d] != component[target] {
				continue
			}
			seen[d] = true
			queue = append(queue, d)
		}
	}
	return seen
}

// stronglyConnected numbers the strongly connected components of the graph deps gives each
// vertex's dependencies of (Tarjan's algorithm, iterative so that long chains cannot exhaust the
// stack): vertices in one component share a number.
func stronglyConnected(deps [][]vertex) []int {
	n := len(deps)
	index, low, component := make([]int, n), make([]int, n), make([]int, n)
	for i := range index {
		index[i] = -1
	}
	onStack := make([]bool, n)
	var stack []vertex
	next, components := 0, 0
	type frame struct {
		v vertex
		i int // the next of v's dependencies to visit
	}
	for r := range n {
		root := vertex(r)
		if index[root] >= 0 {
			continue
		}
		calls := []frame{{v: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.i < len(deps[f.v]) {
				w := deps[f.v][f.i]
				f.i++
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w})
				case onStack[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				parent := calls[len(calls)-1].v
				low[parent] = min(low[parent], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					component[w] = components
					if w == v {
						break
					}
				}
				components++
			}
		}
	}
	return component
}
