package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/state"
)

// The landscape's outputs are recorded in the state by every apply, so that `gardener output`
// reads them without rendering the landscape or reaching a cluster. A sensitive output is
// recorded as such, without its value. Outputs the plan knew only after apply (values live objects
// provide) are evaluated again once the apply succeeded; a destroy leaves no outputs.

// recordedOutputs are a plan's outputs as the state records them.
func recordedOutputs(outs []plan.Output) map[string]*state.Output {
	if len(outs) == 0 {
		return nil
	}
	m := make(map[string]*state.Output, len(outs))
	for _, o := range outs {
		m[o.Name] = &state.Output{Value: o.Value, Sensitive: o.Sensitive, Unknown: o.Unknown}
	}
	return m
}

// evaluatedOutputs are the outputs of an evaluation (planner.Evaluate) as the state records them:
// values the plan's redactor knows to be secret are sensitive, as in the plan.
func evaluatedOutputs(values map[string]plan.OutputValue, red *render.Redactor) map[string]*state.Output {
	if len(values) == 0 {
		return nil
	}
	m := make(map[string]*state.Output, len(values))
	for _, name := range slices.Sorted(maps.Keys(values)) {
		v := values[name]
		o := &state.Output{Sensitive: v.Sensitive || red.Sensitive(v.Value), Unknown: !v.Known}
		if !o.Sensitive && !o.Unknown {
			o.Value = v.Value
		}
		m[name] = o
	}
	return m
}

// unknownOutputs reports whether an output's value was not known.
func unknownOutputs(m map[string]*state.Output) bool {
	for _, o := range m {
		if o.Unknown {
			return true
		}
	}
	return false
}

// sameOutputs compares outputs as the state stores them (as JSON: a recorded number read back is
// a float64, an evaluated one may be an int64).
func sameOutputs(a, b map[string]*state.Output) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// outputsAfterApply are the outputs to record once a plan is applied: the plan's, evaluated
// again when some were known only after apply and every component was applied.
func outputsAfterApply(ctx context.Context, o LandscapeOptions, out *planner.Outcome, st *state.State, r *Result) map[string]*state.Output {
	pl := out.Result.Plan
	if pl.Destroy {
		return nil
	}
	outs := recordedOutputs(pl.Outputs)
	if !unknownOutputs(outs) || st == nil || r == nil || r.Err() != nil || ctx.Err() != nil {
		return outs
	}
	po := o.Planner
	po.State = st
	again, diags := planner.Evaluate(po)
	if diags.HasErrors() {
		return outs
	}
	return evaluatedOutputs(planner.OutputValues(again), out.Result.Redactor)
}

// SetOutputs records the landscape's outputs; the next write stores them.
func (r *StateRecorder) SetOutputs(outputs map[string]*state.Output) {
	r.change(func() { r.state.Outputs = outputs })
}
