package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/report"
	"github.com/declarative-gardener/gardener/state"
)

// LandscapeOptions configure Landscape.
type LandscapeOptions struct {
	Planner planner.Options
	Apply   Options
	// Cluster configures the state backend's cluster client.
	Cluster cluster.Options
	// Lock names the holder and operation, and how long to wait for a lock held by another.
	Lock state.LockInfo
	// Saved is a saved plan to apply: it is applied only if nothing it touches moved.
	Saved *plan.File
	// Confirm is asked before anything is written, with the plan; nil approves. It is not asked
	// for saved plans (they were reviewed) or plans without changes.
	Confirm func(*plan.Plan) bool
	// OnPlan, when set, receives the computed plan before confirmation (to print it).
	OnPlan func(*planner.Outcome)
	// ClusterState refuses a landscape whose state is not kept in a cluster: the daemon plans
	// from copies of the landscape directory, beside which a state file would be lost.
	ClusterState bool
	// OpenState opens the state backend of the loaded landscape; nil means planner.OpenState
	// (every shard). A daemon shard opens its shard's (planner.OpenShardState).
	OpenState func(*config.Result) (state.Backend, error)
	// NoReport leaves out what the engine reports as gardenlet about the seeds and shoots it
	// manages (engine/report): by default the apply reports their operations, and a plan without
	// changes brings the reports up to date. A plan that is not confirmed reports nothing.
	NoReport bool
}

// ErrCancelled is returned when Confirm declined.
var ErrCancelled = errors.New("apply cancelled")

// LandscapeResult is what Landscape did.
type LandscapeResult struct {
	Outcome *planner.Outcome
	// Result is nil when nothing was executed (no changes, or cancelled).
	Result *Result
	// State is the landscape's state as it is stored now (read, or written by the apply), or
	// nil when that is not known (the run failed before reading it, or a write may have
	// failed). The daemon plans its next cycles from it while the stored state does not move.
	State *state.State
}

// Landscape applies (or, with Planner.Destroy, destroys) a landscape the way `gardener apply`
// does: take the state lock, read the state, plan with it, check a saved plan against the fresh
// one, confirm, execute while recording state, release the lock. Diagnostics report problems of
// the landscape; an error anything else.
func Landscape(ctx context.Context, o LandscapeOptions) (res *LandscapeResult, diags hcl.Diagnostics, err error) {
	res = &LandscapeResult{}
	// The lock is taken before the landscape is rendered (rendering reads live Secrets to reuse
	// generated ones) and observed; finding the state only needs the landscape evaluated, not
	// rendered, and in the plan's scope: an apply targeted at shoots locks the shards of what it
	// plans, not every shard of a sharded state.
	loaded, diags := planner.EvaluateScoped(o.Planner)
	res.Outcome = &planner.Outcome{Load: loaded}
	if diags.HasErrors() {
		return res, diags, nil
	}
	if st := loaded.Landscape.State; o.ClusterState && (st == nil || st.Backend != config.BackendKubernetes) {
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "State must be kept in a cluster",
			Detail:   `The daemon plans from copies of the landscape directory, and a state file beside them would be lost. Keep the state in a cluster: state { backend = "kubernetes", cluster = cluster.<name> } in the landscape block.`,
			Subject:  loaded.Landscape.DeclRange.Ptr(),
		}
		if st != nil {
			d.Subject = st.DeclRange.Ptr()
		}
		return res, hcl.Diagnostics{d}, nil
	}
	open := o.OpenState
	if open == nil {
		open = func(res *config.Result) (state.Backend, error) { return planner.OpenState(res, o.Cluster) }
	}
	backend, err := open(loaded)
	if err != nil {
		return res, nil, err
	}
	lock, err := backend.Lock(ctx, o.Lock)
	if err != nil {
		return res, nil, err
	}
	// A lock lost while held (a lease taken over after renewals failed) ends the apply like
	// Ctrl-C: someone else may be writing now.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-lock.Lost():
			cancel(state.ErrLockLost)
		case <-ctx.Done():
		}
	}()
	defer func() {
		if uerr := lock.Unlock(context.Background()); uerr != nil && err == nil {
			err = fmt.Errorf("release the state lock: %w", uerr)
		}
	}()
	st, err := backend.Read(ctx)
	if err != nil {
		return res, nil, err
	}
	po := o.Planner
	po.State = st
	out, diags, err := planner.Plan(ctx, po)
	res.Outcome = out
	if diags.HasErrors() || err != nil {
		return res, diags, err
	}
	pl := out.Result.Plan
	if o.OnPlan != nil {
		o.OnPlan(out)
	}
	if o.Saved != nil {
		if err := planner.CheckStale(o.Saved, out.Result); err != nil {
			return res, diags, err
		}
	}
	var reports *report.Writer
	if !o.NoReport {
		reports = NewReportWriter(out)
	}
	if !pl.HasChanges() {
		res.State = st
		// Outputs change without any object changing (an output block added); the state of a
		// landscape applied before records them.
		if outs := recordedOutputs(pl.Outputs); st.Serial > 0 && !pl.Destroy && len(pl.Targets) == 0 && !sameOutputs(st.Outputs, outs) {
			st.Outputs = outs
			if err := backend.Write(ctx, st); err != nil {
				return res, diags, fmt.Errorf("record the outputs: %w", err)
			}
		}
		if reports != nil {
			SyncReports(ctx, out, reports, nil, o.Apply.Warn)
		}
		return res, diags, nil
	}
	if o.Saved == nil && o.Confirm != nil && !o.Confirm(pl) {
		res.State = st
		return res, diags, ErrCancelled
	}
	ao := o.Apply
	ao.Reports = reports
	// The state with the moves of the moved blocks made, which the apply writes.
	recorder := NewStateRecorder(backend, out.State)
	ao.Recorder = recorder
	r, err := Run(ctx, out, ao)
	res.Result = r
	if err == nil && len(pl.Targets) == 0 {
		recorder.SetOutputs(outputsAfterApply(ctx, o, out, recorder.State(), r))
		err = recorder.Flush(context.WithoutCancel(ctx))
		if err != nil {
			err = fmt.Errorf("record the outputs: %w", err)
		}
	}
	if err == nil {
		res.State = recorder.State()
	}
	if reports != nil && r != nil {
		SyncReports(context.WithoutCancel(ctx), out, reports, r, o.Apply.Warn)
	}
	return res, diags, err
}
