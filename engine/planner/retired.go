package planner

import (
	"sort"
	"sync"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/state"
)

// earlyState reads the state for the renderer's questions (retiredFromState, provenanceFromState)
// once, on the first question, when the prefetch has not read it yet: it needs the landscape's
// state block, so the landscape is evaluated once more without rendering, and the plan proper
// then uses that read. Plans whose rendering asks nothing read no state early. A nil state with
// a nil error means the plan has none.
func earlyState(opts *Options) func() (*state.State, error) {
	var once sync.Once
	var st *state.State
	var err error
	return func() (*state.State, error) {
		once.Do(func() {
			st = opts.State
			if st != nil || opts.ReadState == nil {
				return
			}
			res, diags := config.Load(opts.Dir, opts.Schemas, opts.Inputs)
			if diags.HasErrors() || res.Evaluated == nil {
				return // the plan proper reports the landscape's problems
			}
			st, err = readStateOnce(opts, res)
		})
		return st, err
	}
}

// retiredFromState answers the renderer's question whether an instance with a lifetime was
// retired by an earlier apply. Rendering asks it only for instances with a lifetime.
func retiredFromState(read func() (*state.State, error)) func(config.InstanceAddress) (*rendering.Retirement, error) {
	return func(addr config.InstanceAddress) (*rendering.Retirement, error) {
		st, err := read()
		if err != nil || st == nil {
			return nil, err
		}
		rec := st.Retired[string(addr)]
		if rec == nil {
			return nil, nil
		}
		return &rendering.Retirement{Address: string(addr), Ended: rec.Ended, Reason: rec.Reason, EndedBy: rec.EndedBy, Recorded: true}, nil
	}
}

// recordRetirements marks the plan's retirements the state records already and, for a plan of
// the whole landscape, lists for apply to forget the state's records of instances that are no
// longer declared or that rendered without a lifetime (the Quota's lifetime was lifted): a block
// added again, or a lifetime set again, starts afresh. Records of instances rendered during
// apply stay.
func recordRetirements(p *plan.Plan, st *state.State, rendered map[config.InstanceAddress]*rendering.Rendered) {
	if st == nil {
		return
	}
	for i := range p.Retired {
		if r := &p.Retired[i]; st.Retired[r.Address] != nil {
			r.Recorded = true
		}
	}
	if len(p.Targets) > 0 || p.Destroy {
		return
	}
	for addr := range st.Retired {
		rd := rendered[config.InstanceAddress(addr)]
		if rd == nil || (rd.Retired == nil && len(rd.Deferred) == 0 && !rd.NoRenderer) {
			p.Forget = append(p.Forget, addr)
		}
	}
	sort.Strings(p.Forget)
}
