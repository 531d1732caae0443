package graph

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/config"
)

// hop is one step of a reference chain: the object referred to and whether depends_on named it.
type hop struct {
	to        config.Address
	dependsOn bool
}

// referenceEdges turns the landscape's references into edges between instances. A reference to
// a block with instances is an edge to each of them. A reference to anything else (a local, a
// cluster, a block that expanded to no instances) is followed to what that refers to, so that
// `cluster = cluster.virtual`, whose kubeconfig is an output of garden.local, orders the block
// after garden.local. Each edge keeps the range of the block's own reference that starts the
// chain: that is what a user edits to break a cycle.
func referenceEdges(l *config.Landscape, blocks map[config.Address][]config.InstanceAddress) []Edge {
	w := walker{l: l, blocks: blocks, from: map[config.Address][]config.Reference{}}
	for _, ref := range l.References {
		w.from[ref.From] = append(w.from[ref.From], ref)
	}
	var edges []Edge
	for _, addr := range l.BlockAddresses() {
		for _, ref := range w.from[addr] {
			first := w.hop(addr, ref)
			kind := Reference
			if first.dependsOn {
				kind = DependsOn
			}
			r := ref.Range
			w.seen = map[config.Address]bool{addr: true}
			w.walk([]hop{first}, func(chain []hop) {
				target := chain[len(chain)-1].to
				for _, fromInst := range blocks[addr] {
					for _, toInst := range blocks[target] {
						edges = append(edges, Edge{From: fromInst, To: toInst, Kind: kind, Reason: chainReason(chain), Range: &r})
					}
				}
			})
		}
	}
	return edges
}

// walker follows references from one block to the blocks with instances they lead to.
type walker struct {
	l      *config.Landscape
	blocks map[config.Address][]config.InstanceAddress
	// from indexes the landscape's references by the object they start at.
	from map[config.Address][]config.Reference
	// seen holds the objects visited from the current reference: each is followed once, so a
	// walk is linear in the references however they fan out and in, and a reference cycle (which
	// the loader reports on its own) ends it.
	seen map[config.Address]bool
}

func (w *walker) hop(from config.Address, ref config.Reference) hop {
	b := w.l.Blocks[from]
	return hop{to: ref.To, dependsOn: b != nil && isDependsOn(b, ref.Range)}
}

// walk calls emit with a chain from the last hop to each block with instances it leads to (the
// first chain found in source order), passing through everything else: locals, clusters and
// blocks that expanded to no instances.
func (w *walker) walk(chain []hop, emit func([]hop)) {
	last := chain[len(chain)-1].to
	if w.seen[last] {
		return
	}
	w.seen[last] = true
	if len(w.blocks[last]) > 0 {
		emit(chain)
		return
	}
	for _, ref := range w.from[last] {
		w.walk(append(chain[:len(chain):len(chain)], w.hop(last, ref)), emit)
	}
}

// isDependsOn reports whether the reference at r is an entry of b's depends_on.
func isDependsOn(b *config.Block, r hcl.Range) bool {
	for _, t := range b.DependsOn {
		if t.SourceRange() == r {
			return true
		}
	}
	return false
}

// chainReason says how a block reaches the target: "refers to seed.a", "depends_on seed.a",
// "refers to local.x, which refers to seed.a".
func chainReason(chain []hop) string {
	parts := make([]string, len(chain))
	for i, h := range chain {
		verb := "refers to"
		if h.dependsOn {
			verb = "depends_on"
		}
		parts[i] = fmt.Sprintf("%s %s", verb, h.to)
		if i > 0 {
			parts[i] = "which " + parts[i]
		}
	}
	return strings.Join(parts, ", ")
}
