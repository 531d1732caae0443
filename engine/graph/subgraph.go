package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/declarative-gardener/gardener/engine/config"
)

// Subgraph is the part of the graph --target plans: the targets and everything they depend on,
// transitively, with the edges among them. What depends on a target is left out, as Terraform
// does: a targeted plan applies what the target needs, not what needs it. Each target must be
// an instance of the graph (see ResolveTarget for turning user input into instances).
func (g *Graph) Subgraph(targets ...config.InstanceAddress) (*Graph, error) {
	var unknown []string
	keep := map[config.InstanceAddress]bool{}
	var visit func(vertex)
	visit = func(v vertex) {
		if keep[g.addrs[v]] {
			return
		}
		keep[g.addrs[v]] = true
		for _, d := range g.deps[v] {
			visit(d)
		}
	}
	for _, t := range targets {
		v, ok := g.ids[t]
		if !ok {
			unknown = append(unknown, string(t))
			continue
		}
		visit(v)
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("subgraph: unknown instances %s", strings.Join(unknown, ", "))
	}
	return g.Filter(keep), nil
}

// Filter returns the graph of the instances in keep and the edges between them; destroy with a
// target keeps the target and its dependents. It takes time in proportion to what it keeps and
// their edges, not to the whole graph: a target in a large landscape is cut out cheaply.
func (g *Graph) Filter(keep map[config.InstanceAddress]bool) *Graph {
	blocks := map[config.Address][]config.InstanceAddress{}
	var extra []config.InstanceAddress
	var edges []Edge
	parts := map[config.InstanceAddress][]config.InstanceAddress{}
	partOf := map[config.InstanceAddress]config.InstanceAddress{}
	for a, kept := range keep {
		v, ok := g.ids[a]
		if !kept || !ok {
			continue
		}
		if b := g.blockOf[v]; b != "" {
			blocks[b] = append(blocks[b], a)
		} else {
			extra = append(extra, a)
		}
		for _, d := range g.deps[v] {
			if keep[g.addrs[d]] {
				edges = append(edges, g.between(v, d)...)
			}
		}
		if parent, isPart := g.partOf[a]; isPart {
			parts[parent] = append(parts[parent], a)
			partOf[a] = parent
		}
	}
	for _, ps := range parts {
		slices.SortFunc(ps, g.compareAddr) // as Build lists them
	}
	// A subgraph of a DAG is a DAG: newGraph cannot report a cycle here.
	sub, _ := newGraph(blocks, extra, edges)
	sub.parts, sub.partOf = parts, partOf
	sub.instances = map[config.InstanceAddress]*config.Instance{}
	for a := range keep {
		if inst, ok := g.instances[a]; ok {
			sub.instances[a] = inst
		}
	}
	return sub
}
