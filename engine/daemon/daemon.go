package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
)

// EventRecorder records Kubernetes Events (client-go's events.EventRecorder, as
// controller-runtime's manager provides it).
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...interface{})
}

// Options configure a Daemon.
type Options struct {
	// Dir is the landscape directory, typically a mounted ConfigMap or a git-sync checkout.
	Dir string
	// WorkDir holds the snapshots the daemon plans from; "" means the system's temporary
	// directory.
	WorkDir string
	Policy  Policy
	// Resync is how often the landscape is planned even when nothing triggered it; Poll how
	// often the directory and an approval are checked; RetryLock how soon a cycle that found
	// the state locked (by a manual apply) is tried again.
	Resync, Poll, RetryLock time.Duration
	// Holder names the daemon in the state lock.
	Holder string
	// Planner returns the planner options for a landscape directory; the command wires the
	// schemas, render functions and cluster connections in.
	Planner func(dir string) planner.Options
	// Cluster configures the state backend's cluster client.
	Cluster cluster.Options
	// Apply configures the executor (parallelism, timeouts).
	Apply   apply.Options
	Status  StatusStore
	Events  EventRecorder
	Metrics *Metrics
	Log     logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// WatchDrift watches the objects the landscape owns and runs a cycle as soon as someone
	// else changes or deletes one, instead of waiting for the resync.
	WatchDrift bool
	// Sharded makes the daemon reconcile one shard of the landscape, Shard (a replica leading
	// it, Sharder): it plans and applies exactly the shard's instances, what they depend on
	// read-only (planner.Exclusive), and reads and writes only the shard's state
	// (planner.OpenShardState).
	Sharded bool
	Shard   string
	// Assign splits the landscape into shards; nil means shard.BySeed.
	Assign func(*config.Evaluated) *shard.Assignment
}

// Daemon reconciles one landscape continuously.
type Daemon struct {
	o    Options
	m    shardMetrics
	kick chan struct{}

	mu sync.Mutex
	// pending are the triggers of the next cycle.
	pending triggers
	// fleet attributes changed objects to the shoots that render them.
	fleet fleet
	// conditions are the derived conditions by instance, as the cycles that last rendered each
	// instance found them: a targeted cycle renders only some shoots.
	conditions map[config.InstanceAddress][]string
	// snapshot is the copy of the landscape the daemon plans, fingerprint its version.
	snapshot, fingerprint string
	last                  Status
	// backoff is how long after a failed cycle the next one runs; it doubles with every
	// failure in a row, up to Resync.
	backoff time.Duration
	watch   *watcher
	// lists watches what render functions list (the Shoots on a seed).
	lists *listWatcher
	// runCtx is Start's context, which the watches live in.
	runCtx context.Context
	// pool keeps the cluster connections from cycle to cycle.
	pool *clientPool
	// known is the state as the last cycle left it stored (nil when unknown); cycles plan from
	// it while the watched state head names its version: knownSerial, the shard's own serial
	// for a sharded daemon.
	known       *state.State
	knownSerial int64
	// knownIn is the backend a sharded daemon's last cycle read known through, which tells
	// the components of its shard from those of the garden shard.
	knownIn state.Backend
	// scope is the shard's split of the snapshot with fingerprint scopeOf (sharded daemons).
	scope   *shard.Assignment
	scopeOf string
	// published is the status content last written (times left out), written when.
	published   string
	publishedAt time.Time
	publishedCM *corev1.ConfigMap
	// revisit starts a cycle when a schedule comes due (scheduleRevisit).
	revisit *time.Timer
	// heartbeats renews the Leases of the seeds the engine manages between cycles.
	heartbeats *heartbeats
}

// New returns a daemon; Start runs it.
func New(o Options) *Daemon {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Resync <= 0 {
		o.Resync = 10 * time.Minute
	}
	if o.RetryLock <= 0 {
		o.RetryLock = 5 * time.Second
	}
	d := &Daemon{o: o, kick: make(chan struct{}, 1), runCtx: context.Background(), pool: newClientPool(), heartbeats: newHeartbeats()}
	label := ""
	if o.Sharded {
		label = shardName(o.Shard)
	}
	d.m = o.Metrics.of(label)
	d.watch = &watcher{trigger: d.request, instanceOf: d.fleet.instanceOf}
	d.lists = &listWatcher{trigger: d.request, instanceOf: d.fleet.instanceOf}
	return d
}

// NeedLeaderElection says that only the leader of the daemon's replicas runs it.
func (d *Daemon) NeedLeaderElection() bool { return true }

// Trigger asks for a cycle of the whole landscape soon; triggers that arrive while one is
// pending are coalesced.
func (d *Daemon) Trigger() { d.request("") }

// TriggerInstance asks for a cycle of one instance of an independent type (a shoot) soon, as a
// change of one of its objects does: triggers of instances that arrive while a cycle is pending
// merge into one targeted cycle, and a trigger of the whole landscape makes it a full one.
func (d *Daemon) TriggerInstance(instance string) { d.request(instance) }

// request records a trigger of instance ("" for the whole landscape) and wakes the loop.
func (d *Daemon) request(instance string) {
	d.mu.Lock()
	d.pending.add(instance)
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// takeTriggers returns what the pending triggers ask for (targets nil: everything); ok is false
// when there are none. Only a daemon whose last cycle left the clusters matching the landscape
// (Applied, UpToDate) plans instances alone: after any other outcome (a failure, a plan waiting
// for approval, for the lock or for another shard) the next cycle covers everything again, so
// that what is left to do is not forgotten behind a targeted cycle's status.
func (d *Daemon) takeTriggers() (targets []string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	targets, ok = d.pending.take()
	if d.last.Phase != PhaseApplied && d.last.Phase != PhaseUpToDate {
		targets = nil
	}
	return targets, ok
}

// Last returns the status of the last cycle.
func (d *Daemon) Last() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// Start runs cycles until ctx ends: at once, whenever the landscape directory changes, an
// awaited approval arrives or Trigger is called, and every Resync. A cycle in progress when ctx
// ends finishes its writes (apply.Landscape records state) before Start returns.
func (d *Daemon) Start(ctx context.Context) error {
	d.runCtx = ctx
	defer d.cleanup()
	defer d.watch.close()
	defer d.lists.close()
	go d.heartbeats.run(ctx, d.warnReport)
	d.cycle(ctx, nil)
	resync := time.NewTicker(d.o.Resync)
	defer resync.Stop()
	poll := time.NewTicker(d.o.Poll)
	defer poll.Stop()
	for {
		var targets []string
		select {
		case <-ctx.Done():
			return nil
		case <-d.kick:
			var ok bool
			if targets, ok = d.takeTriggers(); !ok {
				continue // taken by a cycle that ran since
			}
		case <-resync.C:
			// The resync connects afresh: discovery, OpenAPI documents and credentials may have
			// changed without any owned object changing. It covers whatever is pending.
			d.pool.reset()
			d.takeTriggers()
		case <-poll.C:
			var due bool
			// An approval is of the plan the daemon waits with: planned again with the same
			// scope, or its hash would differ (pending triggers wait for the next cycle).
			if due, targets = d.due(ctx); !due {
				continue
			}
		}
		d.cycle(ctx, targets)
	}
}

// due reports whether something the poll watches changed: the landscape directory, or an
// approval of the plan the daemon waits with; targets are the scope of the cycle it asks for
// (nil: everything), the awaited plan's for an approval.
func (d *Daemon) due(ctx context.Context) (due bool, targets []string) {
	fp, err := Fingerprint(d.o.Dir)
	d.mu.Lock()
	last := d.last
	known := d.fingerprint
	d.mu.Unlock()
	if err != nil {
		// A directory that cannot be read fails the cycle that finds it, and failed cycles are
		// retried with their own backoff rather than at every poll.
		return last.Phase != PhaseFailed, nil
	}
	if fp != known {
		return true, nil
	}
	if last.Phase == PhaseWaitingForApproval {
		a, err := d.o.Status.Approval(ctx)
		if err != nil {
			return false, nil
		}
		// An ignored approval annotation the status does not mention yet is reported at once.
		return (a.Hash != "" && a.Hash == last.PlanHash) || (a.Ignored != "" && !slices.Contains(last.Warnings, d.o.Status.IgnoredApprovalWarning(a.Ignored))), last.Scope
	}
	return false, nil
}

func (d *Daemon) cleanup() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.revisit != nil {
		d.revisit.Stop()
	}
	if d.snapshot != "" {
		os.RemoveAll(d.snapshot)
		d.snapshot = ""
	}
}

// refresh takes a new snapshot of the landscape directory when its fingerprint changed.
func (d *Daemon) refresh() error {
	fp, err := Fingerprint(d.o.Dir)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if fp == d.fingerprint && d.snapshot != "" {
		return nil
	}
	snap, snapFP, err := Snapshot(d.o.Dir, d.o.WorkDir)
	if err != nil {
		return err
	}
	if d.snapshot != "" {
		os.RemoveAll(d.snapshot)
	}
	d.snapshot, d.fingerprint = snap, snapFP
	return nil
}

// Cycle plans the landscape, applies what the policy allows and publishes the result. It is
// what Start runs; tests call it directly.
func (d *Daemon) Cycle(ctx context.Context) Status { return d.cycle(ctx, nil) }

// cycle runs a cycle of targets (nil: the whole landscape, or shard) and publishes it. A cycle
// of targets none of which the daemon's shard owns does not run at all.
func (d *Daemon) cycle(ctx context.Context, targets []string) Status {
	s, ran := d.run(ctx, targets)
	if !ran {
		return d.Last()
	}
	d.mu.Lock()
	d.last = s
	d.mu.Unlock()
	d.publish(ctx, s)
	d.scheduleRevisit(s.NextChange)
	switch s.Phase {
	case PhaseWaitingForLock, PhaseWaitingForShard:
		time.AfterFunc(d.o.RetryLock, d.Trigger)
	case PhaseFailed:
		// A failure (a cluster unreachable, a component not ready in time) is retried sooner
		// than the resync, backing off while it persists.
		d.mu.Lock()
		if d.backoff == 0 {
			d.backoff = d.o.RetryLock
		} else {
			d.backoff = min(2*d.backoff, d.o.Resync)
		}
		wait := d.backoff
		d.mu.Unlock()
		time.AfterFunc(wait, d.Trigger)
	default:
		d.mu.Lock()
		d.backoff = 0
		d.mu.Unlock()
	}
	return s
}

// scheduleRevisit starts a cycle at the next time the landscape's rendering changes by time
// alone (a hibernation schedule's trigger), instead of polling for it; zero cancels it.
func (d *Daemon) scheduleRevisit(at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.revisit != nil {
		d.revisit.Stop()
		d.revisit = nil
	}
	if at.IsZero() {
		return
	}
	d.revisit = time.AfterFunc(max(at.Sub(d.o.Now()), 0), d.Trigger)
}

// run is one cycle without publishing, of targets (instances of independent types, the shoots
// whose objects changed) or, with none, of the whole landscape (a sharded daemon's shard). It
// plans from the watches' caches first: a landscape that needs nothing done is confirmed without
// a single request. Any other outcome (changes, errors, caches or state not current) is planned
// again the way `gardener apply` plans, under the state lock with reads from the API servers,
// and only that plan is applied: a stale cache can cost a plan, never a wrong write. ran is false
// when the targets are none of a sharded daemon's shard's: there was nothing to do.
func (d *Daemon) run(ctx context.Context, targets []string) (s Status, ran bool) {
	s = Status{Landscape: d.o.Dir, Policy: d.o.Policy}
	m := d.m
	if err := d.refresh(); err != nil {
		s.Phase, s.Message, s.Errors = PhaseFailed, "the landscape directory cannot be read", err.Error()
		m.Errors.WithLabelValues("daemon").Inc()
		return d.finish(s), true
	}
	d.mu.Lock()
	snapshot := d.snapshot
	s.Fingerprint = d.fingerprint
	d.mu.Unlock()
	if !d.fleet.current(s.Fingerprint) {
		// The landscape changed since the triggers were attributed to its shoots (or no cycle
		// has evaluated it yet): everything is planned.
		targets = nil
	}

	var scope *planner.Exclusive
	var split *shard.Assignment
	if d.o.Sharded {
		var err error
		if split, err = d.split(snapshot, s.Fingerprint); err != nil {
			s.Phase, s.Message, s.Errors = PhaseInvalid, "the landscape has errors; the clusters keep the last applied version", strings.ReplaceAll(err.Error(), snapshot, d.o.Dir)
			m.Errors.WithLabelValues("landscape").Inc()
			return d.finish(s), true
		}
		instances := split.Instances(d.o.Shard)
		if len(instances) == 0 {
			s.Phase, s.Message = PhaseUpToDate, fmt.Sprintf("the landscape assigns nothing to shard %s", shardName(d.o.Shard))
			return d.finish(s), true
		}
		if targets != nil {
			// Each shard's daemon watches every owned object; a shoot of another shard is
			// that shard's alone.
			if targets = slices.DeleteFunc(targets, func(t string) bool { return !slices.Contains(instances, t) }); len(targets) == 0 {
				return s, false
			}
			instances = targets
		}
		scope = &planner.Exclusive{Instances: instances}
	}
	s.Scope = targets
	targeted := len(targets) > 0

	start := d.o.Now()
	if out := d.planFromCaches(ctx, snapshot, scope, targets); out != nil {
		m.Plans.WithLabelValues("cache").Inc()
		s.PlanTime = d.o.Now()
		m.PlanDuration.Observe(s.PlanTime.Sub(start).Seconds())
		d.recordPlan(&s, out.Result.Plan)
		d.derive(&s, out, targeted)
		if !targeted {
			// A targeted plan observes the kinds of its shoots only: the watches stay those
			// of the whole landscape.
			d.watchOwned(out)
			d.fleet.learn(out, s.Fingerprint)
		}
		if d.reports() {
			apply.SyncReports(ctx, out, apply.NewReportWriter(out), nil, d.warnReport)
			if !targeted {
				d.keepHeartbeats(out)
			}
		}
		s.Phase, s.Message = PhaseUpToDate, "the clusters match the landscape"
		s.LastSuccess = d.o.Now()
		return d.finish(s), true
	}

	var decision Decision
	var waiting []string
	var backend state.Backend
	po := d.plannerFor(snapshot)
	if !d.o.Sharded {
		po.Targets = targets
	}
	po.Exclusive = d.owning(scope, func() state.Backend { return backend })
	po.Connect = d.pool.connector(po.Connect)
	ao := d.o.Apply
	ao.Warn = d.warnReport
	lo := apply.LandscapeOptions{
		Planner: po, Apply: ao, Cluster: d.o.Cluster,
		Lock: state.LockInfo{Holder: d.o.Holder, Operation: "daemon"}, ClusterState: true,
		NoReport: !d.reports(),
		OnPlan: func(out *planner.Outcome) {
			waiting = out.Waiting
			m.Plans.WithLabelValues("live").Inc()
			s.PlanTime = d.o.Now()
			m.PlanDuration.Observe(s.PlanTime.Sub(start).Seconds())
			d.recordPlan(&s, out.Result.Plan)
			d.derive(&s, out, targeted)
		},
		Confirm: func(pl *plan.Plan) bool {
			a, err := d.o.Status.Approval(ctx)
			if err != nil {
				d.o.Log.Error(err, "reading the approval")
			}
			if a.Ignored != "" {
				s.Warnings = append(s.Warnings, d.o.Status.IgnoredApprovalWarning(a.Ignored))
			}
			decision = Decide(d.o.Policy, pl, s.PlanHash, a.Hash)
			if len(waiting) > 0 {
				decision = Decision{Reason: fmt.Sprintf("shard %s waits for the shard that owns %s to apply it", shardName(d.o.Shard), strings.Join(waiting, ", "))}
			}
			return decision.Apply
		},
	}
	if d.o.Sharded {
		lo.OpenState = func(res *config.Result) (state.Backend, error) {
			b, err := planner.OpenShardState(res, d.o.Cluster, split, d.o.Shard)
			backend = b
			return b, err
		}
	}
	res, diags, err := apply.Landscape(ctx, lo)
	if d.o.WatchDrift && !targeted && res != nil && res.Outcome != nil && res.Outcome.Result != nil {
		d.watchOwned(res.Outcome)
	}
	if res != nil && !diags.HasErrors() {
		d.fleet.learn(res.Outcome, s.Fingerprint)
	}
	if !lo.NoReport && !targeted && res != nil && res.Outcome != nil && res.Outcome.Result != nil && !diags.HasErrors() {
		// A targeted cycle renders every seed too, but the heartbeats' writer would then see
		// only what that cycle observed; the last full cycle's stay.
		d.keepHeartbeats(res.Outcome)
	}
	d.mu.Lock()
	d.known, d.knownSerial, d.knownIn = nil, 0, backend
	if res != nil && res.State != nil {
		d.known, d.knownSerial = res.State, res.State.Serial
		if d.o.Sharded {
			serial, ok := state.ShardSerial(backend, res.State.Serial, d.o.Shard)
			d.known, d.knownSerial = nil, serial
			if ok {
				d.known = res.State
			}
		}
	}
	d.mu.Unlock()
	redact := func(msg string) string {
		// Messages name the landscape's files where the user keeps them, not in the snapshot.
		msg = strings.ReplaceAll(msg, snapshot, d.o.Dir)
		if res != nil && res.Outcome != nil {
			return res.Outcome.Redact(msg)
		}
		return msg
	}
	var locked *state.LockedError
	switch {
	case diags.HasErrors():
		s.Phase, s.Message = PhaseInvalid, "the landscape has errors; the clusters keep the last applied version"
		var buf bytes.Buffer
		var files diag.Files
		if res != nil && res.Outcome != nil && res.Outcome.Load != nil {
			files = res.Outcome.Load.Files
		}
		_ = diag.WriteText(&buf, diags, files, diag.TextOptions{})
		s.Errors = redact(buf.String())
		m.Errors.WithLabelValues("landscape").Inc()
	case errors.As(err, &locked):
		s.Phase, s.Message = PhaseWaitingForLock, redact(err.Error())
	case errors.Is(err, apply.ErrCancelled) && len(waiting) > 0:
		s.Phase, s.Message = PhaseWaitingForShard, decision.Reason
	case errors.Is(err, apply.ErrCancelled):
		s.Phase, s.Message = PhasePlanned, decision.Reason
		if d.o.Policy == PolicyApproveDestructive {
			s.Phase = PhaseWaitingForApproval
		}
	case err != nil:
		s.Phase, s.Message, s.Errors = PhaseFailed, "the cycle failed", redact(err.Error())
		m.Errors.WithLabelValues("daemon").Inc()
	case res.Result == nil:
		s.Phase, s.Message = PhaseUpToDate, "the clusters match the landscape"
		s.LastSuccess = d.o.Now()
	default:
		s.ApplyTime = d.o.Now()
		m.ApplyDuration.Observe(s.ApplyTime.Sub(s.PlanTime).Seconds())
		d.recordApply(&s, res.Result, redact)
	}
	if s.Phase == PhaseFailed || (res != nil && res.Result != nil && changesAPIs(res.Outcome.Result.Plan)) {
		// New CRDs change discovery and the OpenAPI documents; a failure may be a credential
		// gone stale.
		d.pool.reset()
	}
	return d.finish(s), true
}

// derive puts the outcome's next scheduled change and derived conditions into the status. A
// targeted cycle renders only some shoots: the conditions of the instances it did not render
// stay as the cycles that last rendered them found them, and the next change the daemon waits
// for stays unless the cycle's own comes earlier (a schedule of a shoot it left out).
func (d *Daemon) derive(s *Status, out *planner.Outcome, targeted bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !targeted || d.conditions == nil {
		d.conditions = map[config.InstanceAddress][]string{}
	}
	for addr, rd := range out.Rendered {
		delete(d.conditions, addr)
		for _, c := range rd.Conditions {
			d.conditions[addr] = append(d.conditions[addr], string(addr)+": "+c.String())
		}
	}
	s.Conditions = nil
	for _, addr := range slices.Sorted(maps.Keys(d.conditions)) {
		s.Conditions = append(s.Conditions, d.conditions[addr]...)
	}
	s.NextChange = out.Revisit()
	if prev := d.last.NextChange; targeted && prev.After(d.o.Now()) {
		s.NextChange = render.Earliest(s.NextChange, prev)
	}
}

// changesAPIs reports whether a plan writes or deletes objects that change what the API servers
// serve (CRDs, APIServices), which the pool's connections remember.
func changesAPIs(pl *plan.Plan) bool {
	for _, c := range pl.Components {
		for _, o := range c.Objects {
			if o.Action == plan.NoOp {
				continue
			}
			switch o.Ref.GroupKind() {
			case schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
				schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}:
				return true
			}
		}
	}
	return false
}

// finish records a cycle's outcome in the metrics and carries the last success forward.
func (d *Daemon) finish(s Status) Status {
	m := d.m
	if !s.LastSuccess.IsZero() {
		m.LastSuccess.Set(float64(s.LastSuccess.Unix()))
	} else {
		s.LastSuccess = d.Last().LastSuccess
	}
	scope := ScopeFull
	if len(s.Scope) > 0 {
		scope = ScopeTargeted
	}
	m.Cycles.WithLabelValues(s.Phase, scope).Inc()
	return s
}

// errStateMoved ends a plan from the caches whose state is not the one the watch sees stored.
var errStateMoved = errors.New("the stored state moved")

// plannerFor is how a cycle plans the snapshot: at the daemon's clock, with the differs (and
// their OpenAPI documents) kept from cycle to cycle.
func (d *Daemon) plannerFor(snapshot string) planner.Options {
	po := d.o.Planner(snapshot)
	// The daemon always runs confined: whoever can change its landscape (a ConfigMap, a git
	// repository) must not make it read its service account token or the operator's mounted
	// kubeconfigs beyond the cluster blocks that name them (docs/security.md).
	po.Inputs.Trust.Confined = true
	po.Now = d.o.Now()
	po.Differs = d.pool.differFactory(po.Differs)
	return po
}

// planFromCaches plans the landscape from the watches' informers and the state the last cycle
// left, without the state lock (it writes nothing). It returns the outcome only when the plan is
// complete and has no changes; nil sends the cycle to the API servers.
func (d *Daemon) planFromCaches(ctx context.Context, snapshot string, scope *planner.Exclusive, targets []string) *planner.Outcome {
	d.mu.Lock()
	known, knownSerial, knownIn := d.known, d.knownSerial, d.knownIn
	d.mu.Unlock()
	if !d.o.WatchDrift || known == nil {
		return nil
	}
	po := d.plannerFor(snapshot)
	if !d.o.Sharded {
		po.Targets = targets
	}
	po.Exclusive = d.owning(scope, func() state.Backend { return knownIn })
	po.Connect = cachedConnector(d.pool.connector(po.Connect), d.watch, d.lists)
	po.ReadState = func(res *config.Result) (*state.State, error) {
		head, err := d.headOf(res)
		if err != nil {
			return nil, err
		}
		lineage, serial, exists, ok := d.watch.headVersion(head)
		switch {
		case !ok, exists && (lineage != known.Lineage || serial != knownSerial), !exists && knownSerial != 0:
			return nil, errStateMoved
		}
		return known, nil
	}
	out, diags, err := planner.Plan(ctx, po)
	if diags.HasErrors() || err != nil || out == nil || out.Result == nil || out.Result.Plan.HasChanges() {
		return nil
	}
	return out
}

// headOf finds where the state head of the daemon's shard (of the landscape, unsharded) is.
func (d *Daemon) headOf(res *config.Result) (headTarget, error) {
	head, err := headOf(res)
	if err == nil && d.o.Sharded {
		head.Name = state.ShardHeadName(res.Landscape.Name, d.o.Shard)
	}
	return head, err
}

// headOf finds where a landscape's state head is: its kubernetes backend's cluster block,
// namespace and name.
func headOf(res *config.Result) (headTarget, error) {
	if res == nil || res.Landscape == nil {
		return headTarget{}, errors.New("the landscape keeps no state in a cluster")
	}
	ns, name, ok := planner.StateHead(res.Landscape.State, res.Landscape.Name)
	if !ok {
		return headTarget{}, errors.New("the landscape keeps no state in a cluster")
	}
	return headTarget{Cluster: res.Landscape.State.Cluster, Namespace: ns, Name: name}, nil
}

// split returns the landscape's split into shards, loaded again only when the snapshot changed.
func (d *Daemon) split(snapshot, fingerprint string) (*shard.Assignment, error) {
	d.mu.Lock()
	if d.scope != nil && d.scopeOf == fingerprint {
		defer d.mu.Unlock()
		return d.scope, nil
	}
	d.mu.Unlock()
	po := d.o.Planner(snapshot)
	po.Inputs.Trust.Confined = true
	res, diags := config.Load(snapshot, po.Schemas, po.Inputs)
	if diags.HasErrors() {
		return nil, diags
	}
	assign := d.o.Assign
	if assign == nil {
		assign = shard.BySeed
	}
	a := assign(res.Evaluated)
	d.mu.Lock()
	d.scope, d.scopeOf = a, fingerprint
	d.mu.Unlock()
	return a, nil
}

// owning is scope (nil for an unsharded daemon) owning the components that the daemon's shard
// records in the state read through backend().
func (d *Daemon) owning(scope *planner.Exclusive, backend func() state.Backend) *planner.Exclusive {
	if scope == nil {
		return nil
	}
	c := *scope
	c.Owns = func(addr string) bool {
		s, ok := state.RecordedIn(backend(), addr)
		return ok && s == d.o.Shard
	}
	return &c
}

// shardName names a shard in messages.
func shardName(s string) string {
	if s == shard.Garden {
		return "garden"
	}
	return s
}

// recordPlan puts a plan's summary, hash, JSON and drifted objects into the status and the
// metrics.
func (d *Daemon) recordPlan(s *Status, pl *plan.Plan) {
	m := d.m
	var text bytes.Buffer
	_ = views.Plan(&text, pl, views.PlanOptions{})
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "Plan:") || strings.HasPrefix(l, "No changes") {
			s.PlanSummary = l
		}
	}
	var js bytes.Buffer
	_ = views.PlanJSON(&js, pl)
	s.PlanJSON = js.String()
	if h, err := Hash(pl); err == nil {
		s.PlanHash = h
	}
	sum := pl.Summary
	m.Objects.WithLabelValues("create").Set(float64(sum.Add))
	m.Objects.WithLabelValues("update").Set(float64(sum.Change))
	m.Objects.WithLabelValues("replace").Set(float64(sum.Replace))
	m.Objects.WithLabelValues("delete").Set(float64(sum.Destroy))
	m.Objects.WithLabelValues("held").Set(float64(sum.Held))
	for _, c := range pl.Components {
		for _, o := range c.Objects {
			// Changed out of band: fields the engine owned edited or removed (drift), or fields
			// it sets taken over by another field manager (conflict, as after kubectl edit).
			if o.Reason.Kind == plan.ReasonDrift || o.Reason.Kind == plan.ReasonConflict {
				s.Drifted = append(s.Drifted, fmt.Sprintf("%s %s (%s)", c.Address, o.Shown(), o.Cluster))
			}
		}
	}
	m.Drifted.Set(float64(len(s.Drifted)))
}

// recordApply puts an apply's outcome per component into the status and the metrics.
func (d *Daemon) recordApply(s *Status, r *apply.Result, redact func(string) string) {
	m := d.m
	s.ComponentState = map[string]string{}
	var failed []string
	for _, c := range r.Components {
		ready := 0.0
		if c.Status == apply.Applied {
			ready = 1
			s.ComponentState[c.Address] = string(c.Status)
		} else {
			msg := redact(c.Message())
			s.ComponentState[c.Address] = msg
			failed = append(failed, msg)
			if c.Status == apply.Failed {
				m.Errors.WithLabelValues(c.Address).Inc()
			}
		}
		m.ComponentReady.WithLabelValues(c.Address).Set(ready)
	}
	if len(failed) > 0 {
		s.Phase, s.Message = PhaseFailed, fmt.Sprintf("%d component(s) were not applied", len(failed))
		s.ApplyResult = strings.Join(failed, "\n")
		return
	}
	s.Phase, s.LastSuccess = PhaseApplied, s.ApplyTime
	s.Message = "the plan was applied"
	m.Repaired.Add(float64(len(s.Drifted)))
	if n := len(s.Drifted); n > 0 {
		s.Message = fmt.Sprintf("the plan was applied, repairing %d drifted object(s)", n)
	}
}

// publish writes the status and records an Event for what changed. A status whose content (its
// times aside) is the one last written is not written again before a resync period has passed:
// a cycle that finds nothing to do costs no request, and the status's times show when its
// content was first reached.
func (d *Daemon) publish(ctx context.Context, s Status) {
	content := s.content()
	d.mu.Lock()
	cm := d.publishedCM
	fresh := cm != nil && content == d.published && d.o.Now().Sub(d.publishedAt) < d.o.Resync
	d.mu.Unlock()
	if !fresh {
		var err error
		cm, err = d.o.Status.Write(ctx, s)
		if err != nil {
			d.o.Log.Error(err, "publishing the status")
			return
		}
		d.mu.Lock()
		d.published, d.publishedAt, d.publishedCM = content, d.o.Now(), cm
		d.mu.Unlock()
	}
	d.o.Log.Info("cycle", "phase", s.Phase, "message", s.Message, "scope", s.Scope, "plan", s.PlanSummary)
	if d.o.Events == nil {
		return
	}
	kind, reason := corev1.EventTypeNormal, s.Phase
	switch s.Phase {
	case PhaseUpToDate:
		return // nothing happened worth an Event
	case PhaseFailed, PhaseInvalid:
		kind = corev1.EventTypeWarning
	}
	note := s.Message
	if s.PlanSummary != "" {
		note += ". " + s.PlanSummary
	}
	if s.Phase == PhaseInvalid {
		note += "\n" + s.Errors
	}
	d.o.Events.Eventf(cm, nil, kind, reason, "Reconcile", "%s", truncate(note, 1000))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// dynamicClient is what a connected cluster offers the watches.
type dynamicClient interface{ Dynamic() dynamic.Interface }

// watchOwned watches, in every cluster, the resources of the kinds the plan observed.
func (d *Daemon) watchOwned(out *planner.Outcome) {
	clients := map[string]dynamic.Interface{}
	for name, c := range out.Clusters {
		if dc, ok := c.(dynamicClient); ok {
			clients[name] = dc.Dynamic()
		}
	}
	var targets []WatchTarget
	for name, obs := range out.Result.Observed {
		for _, r := range obs.Resources {
			targets = append(targets, WatchTarget{Cluster: name, GVR: r.GVR()})
		}
	}
	if out.Load != nil && out.Load.Landscape != nil {
		d.watch.landscape = out.Load.Landscape.Name
	}
	head, err := d.headOf(out.Load)
	if err != nil {
		head = headTarget{}
	}
	d.watch.ensure(d.runCtx, clients, targets, head)
	d.lists.ensure(d.runCtx, clients, out.Listed)
}
