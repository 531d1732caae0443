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
	var visit func(config.InstanceAddress)
	visit = func(a config.InstanceAddress) {
		if keep[a] {
			return
		}
		keep[a] = true
		for _, d := range g.deps[a] {
			visit(d)
		}
	}
	for _, t := range targets {
		if !g.Has(t) {
			unknown = append(unknown, string(t))
			continue
		}
		visit(t)
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("subgraph: unknown instances %s", strings.Join(unknown, ", "))
	}
	return g.Filter(keep), nil
}

// Filter returns the graph of the instances in keep and the edges between them; destroy with a
// target keeps the target and its dependents.
func (g *Graph) Filter(keep map[config.InstanceAddress]bool) *Graph {
	blocks := map[config.Address][]config.InstanceAddress{}
	for b, insts := range g.blocks {
		for _, i := range insts {
			if keep[i] {
				blocks[b] = append(blocks[b], i)
			}
		}
	}
	var edges []Edge
	for key, es := range g.edges {
		if keep[key[0]] && keep[key[1]] {
			edges = append(edges, es...)
		}
	}
	var extra []config.InstanceAddress
	parts := map[config.InstanceAddress][]config.InstanceAddress{}
	for parent, ps := range g.parts {
		for _, p := range ps {
			if keep[p] {
				extra = append(extra, p)
				parts[parent] = append(parts[parent], p)
			}
		}
	}
	// A subgraph of a DAG is a DAG: newGraph cannot report a cycle here.
	sub, _ := newGraph(blocks, extra, edges)
	sub.parts = parts
	sub.instances = map[config.InstanceAddress]*config.Instance{}
	for a := range keep {
		if inst, ok := g.instances[a]; ok {
			sub.instances[a] = inst
		}
	}
	return sub
}
