package planner

import (
	"errors"
	"slices"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// Scope is what one daemon shard writes: exactly these instances and their parts. Targets
// (Terraform's -target) plan targets and everything they depend on, and apply all of it; a shard
// must not write what another shard owns (the garden, projects, extensions a shoot depends on),
// so a scoped plan plans those dependencies too, for their outputs and their state, but
// read-only: when one of them has changes, the plan names it in Outcome.Waiting and the shard
// waits for the shard that owns it.
type Scope struct {
	// Instances are instance addresses (`seed.a`, `shoot.dev["x"]`).
	Instances []string
}

// apply plans the scope's instances the way targets are planned.
func (s *Scope) apply(opts *Options) error {
	if s == nil {
		return nil
	}
	if len(s.Instances) == 0 {
		return errors.New("plan: the scope names no instance")
	}
	if len(opts.Targets) > 0 {
		return errors.New("plan: a scope and targets cannot be combined")
	}
	opts.Targets = slices.Clone(s.Instances)
	return nil
}

// waiting returns the components of pl outside the scope that have changes, sorted.
func (s *Scope) waiting(pl *plan.Plan, resolved []config.InstanceAddress) []string {
	if s == nil {
		return nil
	}
	in := map[string]bool{}
	for _, a := range resolved {
		in[string(a)] = true
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
