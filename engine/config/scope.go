package config

import (
	"github.com/declarative-gardener/gardener/engine/address"
)

// Scope limits evaluation to what a plan targeted at some instances needs, so that a change to
// one shoot costs the same in a landscape of 10 or 10,000 shoots. It leaves out only instances
// of independent types (schema.Schema.Independent, the shoots of a fleet) that are not targets
// and that nothing evaluated refers to: every other block is evaluated and rendered as in a full
// plan, because its objects may be what the targets need without a reference (a Namespace, a
// CustomResourceDefinition, a ControllerRegistration).
type Scope struct {
	// blocks are the blocks evaluated whole: every block of a type that is not independent,
	// what those and the targets refer to (through locals and clusters too), and blocks named
	// as targets.
	blocks map[Address]bool
	// instances are the targets that name one instance of a block not evaluated whole.
	instances map[InstanceAddress]bool
}

// TargetScope is the scope of a plan of the given targets (the addresses --target accepts). It
// returns nil, which evaluates everything, when there are no targets, when a target is not of an
// independent type, or when a target is not an address it can place: target resolution reports
// those later on the whole landscape.
func (l *Landscape) TargetScope(targets []string) *Scope {
	if len(targets) == 0 {
		return nil
	}
	s := &Scope{blocks: map[Address]bool{}, instances: map[InstanceAddress]bool{}}
	var roots []Address
	for _, t := range targets {
		a, err := address.Parse(t)
		if err != nil {
			return nil
		}
		if parent, isPart := a.Parent(); isPart {
			a = parent
		}
		block := Address(a.Block().String())
		if b := l.Blocks[block]; b == nil || !b.Schema.Independent {
			// Targets of other types may be composites whose parts follow what shoots
			// create (an extension's installation on a seed): their dependencies are
			// only known once everything is rendered.
			return nil
		}
		roots = append(roots, block)
		if a.Key.IsZero() {
			s.blocks[block] = true
		} else {
			s.instances[InstanceAddress(a.String())] = true
		}
	}
	for addr, b := range l.Blocks {
		if !b.Schema.Independent {
			s.blocks[addr] = true
			roots = append(roots, addr)
		}
	}
	// What the roots refer to, transitively, is evaluated whole; a root itself only as the
	// targets say (an instance target keeps its siblings out).
	l.referred(roots, func(to Address) bool { s.blocks[to] = true; return false })
	return s
}

// referred calls found with every object the roots refer to, directly or through others (locals,
// clusters, blocks) and depends_on, each once; it stops when found returns true.
func (l *Landscape) referred(roots []Address, found func(Address) bool) {
	refs := map[Address][]Address{}
	for _, r := range l.References {
		refs[r.From] = append(refs[r.From], r.To)
	}
	visited := map[Address]bool{}
	queue := roots
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		if visited[from] {
			continue
		}
		visited[from] = true
		for _, to := range refs[from] {
			if found(to) {
				return
			}
			queue = append(queue, to)
		}
	}
}

// Skips reports whether evaluation leaves the instance out.
func (s *Scope) Skips(b *Block, addr InstanceAddress) bool {
	if s == nil || s.blocks[b.Addr] || !b.Schema.Independent {
		return false
	}
	return !s.instances[addr]
}

// RefersTo reports whether block from refers to block to, directly or through other objects
// (locals, clusters, blocks) and depends_on.
func (l *Landscape) RefersTo(from, to Address) bool {
	refers := false
	l.referred([]Address{from}, func(a Address) bool { refers = a == to; return refers })
	return refers
}
