package planner

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// Evaluate loads and renders the landscape against its clusters as a plan does, with its state
// (generated secrets are the ones the plan would use), but observes and plans nothing: for the
// values only rendering knows, such as the landscape's outputs once an apply has made the live
// values they depend on known (`gardener output`, and apply recording the outputs). Targets and
// Destroy are ignored: outputs are the whole landscape's.
func Evaluate(opts Options) (*Outcome, hcl.Diagnostics) {
	opts.Targets, opts.Destroy = nil, false
	conns := newConnections(opts.Connect, landscapefs.New(opts.Dir, opts.Inputs.Trust))
	return prepare(opts, conns, earlyState(&opts))
}

// OutputValues are the landscape's outputs as an evaluation left them: sensitive ones without
// their value.
func OutputValues(out *Outcome) map[string]plan.OutputValue {
	if out == nil || out.Load == nil || out.Load.Evaluated == nil || out.Load.Landscape == nil {
		return nil
	}
	return outputValues(out.Load.Evaluated, out.Load.Landscape)
}
