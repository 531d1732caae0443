package planner

import (
	"errors"
	"slices"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// Exclusive is what one daemon shard writes: exactly these instances and their parts. Targets
// (Terraform's -target) plan targets and everything they depend on, and apply all of it; a shard
// must not write what another shard owns (the garden, projects, extensions a shoot depends on),
// so an exclusive plan plans those dependencies too, for their outputs and their state, but
// read-only: when one of them has changes, the plan names it in Outcome.Waiting and the shard
// waits for the shard that owns it.
type Exclusive struct {
	// Instances are instance addresses (`seed.a`, `shoot.dev["x"]`).
	Instances []string
	// Owns reports whether the shard's own state records a component (the shard's state, not
	// the garden shard's read beside it): a component it owns that the landscape no longer
	// declares is deleted by the exclusive plan. Nil owns none.
	Owns func(address string) bool
}

// apply plans the instances the way targets are planned.
func (s *Exclusive) apply(opts *Options) error {
	if s == nil {
		return nil
	}
	if len(s.Instances) == 0 {
		return errors.New("plan: the exclusive plan names no instance")
	}
	if len(opts.Targets) > 0 {
		return errors.New("plan: an exclusive plan cannot have targets")
	}
	opts.Targets = slices.Clone(s.Instances)
	return nil
}

// waiting returns the components of pl outside the exclusive plan's reach (its instances, their parts and the
// removed components it owns) that have changes, sorted.
func (s *Exclusive) waiting(pl *plan.Plan, resolved []config.InstanceAddress, removed []string) []string {
	if s == nil {
		return nil
	}
	in := map[string]bool{}
	for _, a := range resolved {
		in[string(a)] = true
	}
	for _, a := range removed {
		in[a] = true
	}
	inScope := func(addr string) bool {
		if in[addr] {
			return true
		}
		a, err := address.Parse(addr)
		if err != nil {
			return false
		}
		parent, ok := a.Parent()
		return ok && in[parent.String()]
	}
	var out []string
	for _, c := range pl.Components {
		if c.Action != plan.NoOp && c.Action != plan.Read && !inScope(c.Address) {
			out = append(out, c.Address)
		}
	}
	slices.Sort(out)
	return out
}

// removed returns the components st records that ev does not declare (nor their composite) and
// that the plan owns, sorted: a removed shoot of a seed's shard is that shard's to delete.
func (s *Exclusive) removed(st *state.State, ev *config.Evaluated) []string {
	if s == nil || s.Owns == nil || st == nil || ev == nil {
		return nil
	}
	var out []string
	for addr := range st.Components {
		declared := ev.Instances[config.InstanceAddress(addr)] != nil
		if a, err := address.Parse(addr); err == nil {
			if parent, ok := a.Parent(); ok && ev.Instances[config.InstanceAddress(parent.String())] != nil {
				declared = true
			}
			// A targeted evaluation leaves instances out (config.Scope) that the landscape
			// still declares: only a component whose block is gone counts as removed then.
			if ev.Skipped > 0 && ev.Landscape != nil && ev.Landscape.Blocks[config.Address(a.Block().String())] != nil {
				declared = true
			}
		}
		if !declared && s.Owns(addr) {
			out = append(out, addr)
		}
	}
	slices.Sort(out)
	return out
}

// addresses converts component addresses to instance addresses.
func addresses(addrs []string) []config.InstanceAddress {
	out := make([]config.InstanceAddress, len(addrs))
	for i, a := range addrs {
		out[i] = config.InstanceAddress(a)
	}
	return out
}
