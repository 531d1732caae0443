package readiness

import (
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// DefaultMaxWatches bounds the watches one Wait keeps open when WaitOptions.MaxWatches is zero. A
// component rarely has more than a handful of (resource, namespace) pairs; the bound protects the
// API server when the executor waits on many components at once.
const DefaultMaxWatches = 10

// WaitOptions tune Wait.
type WaitOptions struct {
	// Check passes options to the readiness rules.
	Check Options
	// MaxWatches bounds the number of watches open at once (default DefaultMaxWatches). Groups
	// beyond the bound are listed once and then queue for a watch slot.
	MaxWatches int
	// Timeout, when positive, limits the wait in addition to the context's deadline.
	Timeout time.Duration
	// OnChange, when set, is called whenever the readiness of a target changes (including the
	// first observation), for live progress. Calls are serialised; it must not block for long.
	OnChange func(Target, Status)
}

// Wait blocks until every target is ready, watching the objects rather than polling them: one
// LIST per (resource, namespace) for the current state, then a WATCH from that list's
// resourceVersion. A watch that closes is re-established from the last resourceVersion seen; an
// expired one (410 Gone) or a failed one is replaced by a fresh LIST. Once all targets of a group
// are ready its watch is closed, so a target that later regresses is not noticed.
//
// Wait returns nil when all targets are ready, a *NotReadyError wrapping ErrTerminal as soon as a
// target reports a terminal status, and a *NotReadyError wrapping the context's error when the
// context ends (or Timeout passes) first. A target that does not exist is not ready ("not found")
// and is waited for, since some objects are created by controllers.
func Wait(ctx context.Context, client dynamic.Interface, targets []Target, opts WaitOptions) error {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	maxWatches := opts.MaxWatches
	if maxWatches <= 0 {
		maxWatches = DefaultMaxWatches
	}
	groups := groupTargets(targets)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	w := &waiter{
		client:   client,
		opts:     opts,
		slots:    make(chan struct{}, maxWatches),
		statuses: map[Target]TargetStatus{},
		stop:     stop,
	}
	for _, g := range groups {
		for _, name := range g.Names {
			t := g.target(name)
			w.statuses[t] = TargetStatus{Target: t, Status: notReady("not observed yet")}
		}
	}
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() { w.watchGroup(runCtx, g) })
	}
	wg.Wait()
	return w.result(ctx)
}

// waiter is the shared state of one Wait call.
type waiter struct {
	client dynamic.Interface
	opts   WaitOptions
	slots  chan struct{} // watch slots

	mu       sync.Mutex
	statuses map[Target]TargetStatus
	terminal bool
	stop     context.CancelFunc // ends every group once a terminal status is seen
}

// observe records the object seen for a target (nil: not found) and returns whether the target is
// ready now.
func (w *waiter) observe(t Target, obj *unstructured.Unstructured) bool {
	st := CheckWith(obj, w.opts.Check)
	kind := ""
	if obj != nil {
		kind = obj.GetKind()
	}
	w.record(t, kind, st)
	return st.Ready
}

// record stores a status, reports changes and stops the wait on a terminal status.
func (w *waiter) record(t Target, kind string, st Status) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, seen := w.statuses[t]
	if kind == "" {
		kind = prev.Kind
	}
	w.statuses[t] = TargetStatus{Target: t, Kind: kind, Status: st}
	if w.opts.OnChange != nil && (!seen || !prev.Status.Equal(st) || prev.Kind == "" && kind != "") {
		w.opts.OnChange(t, st)
	}
	if st.Terminal && !w.terminal {
		w.terminal = true
		w.stop()
	}
}

// recordUnseen sets the status of targets that were never observed, keeping what is known about
// the others: after a failed LIST the last real observation is still the best explanation.
func (w *waiter) recordUnseen(g watchGroup, st Status) {
	for _, name := range g.Names {
		t := g.target(name)
		w.mu.Lock()
		kind := w.statuses[t].Kind
		w.mu.Unlock()
		if kind == "" {
			w.record(t, "", st)
		}
	}
}

// groupReady reports whether every target of g is ready.
func (w *waiter) groupReady(g watchGroup) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range g.Names {
		if !w.statuses[g.target(name)].Status.Ready {
			return false
		}
	}
	return true
}

// result turns the final statuses into Wait's return value.
func (w *waiter) result(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var notReady []TargetStatus
	for _, s := range w.statuses {
		if !s.Status.Ready {
			notReady = append(notReady, s)
		}
	}
	if len(notReady) == 0 {
		return nil
	}
	slices.SortFunc(notReady, func(a, b TargetStatus) int { return compareTargets(a.Target, b.Target) })
	if w.terminal {
		return &NotReadyError{NotReady: notReady, Terminal: true, Err: ErrTerminal}
	}
	err := ctx.Err()
	if err == nil {
		err = context.Canceled // unreachable: groups only return early when ready or cancelled
	}
	return &NotReadyError{NotReady: notReady, Err: err}
}
