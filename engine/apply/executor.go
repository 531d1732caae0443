// Package apply executes a plan: a per-component DAG executor that starts each component the
// moment everything it depends on is applied and ready, bounded by a parallelism limit, writes
// each component's objects in kind order with server-side apply, waits for them to be ready,
// deletes what the plan deletes, and lets a failure block only its dependents.
package apply

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Status is the outcome of one component.
type Status string

// The outcomes of a component.
const (
	Applied Status = "applied"
	Failed  Status = "failed"
	// Blocked components were not started because a dependency failed or was blocked.
	Blocked Status = "blocked"
	// Skipped components were not started because the apply was interrupted.
	Skipped Status = "skipped"
)

// ComponentResult is what happened to one component.
type ComponentResult struct {
	Address  string
	Status   Status
	Err      error
	Duration time.Duration
	// BlockedBy names the failed dependency a blocked component waited for.
	BlockedBy string
}

// Message says what happened in one line.
func (r ComponentResult) Message() string {
	switch r.Status {
	case Failed:
		return fmt.Sprintf("%s failed: %v", r.Address, r.Err)
	case Blocked:
		return fmt.Sprintf("%s blocked by %s: %v", r.Address, r.BlockedBy, r.Err)
	case Skipped:
		return fmt.Sprintf("%s skipped: the apply was interrupted", r.Address)
	}
	return fmt.Sprintf("%s applied in %s", r.Address, r.Duration.Round(100*time.Millisecond))
}

// Result is the outcome of an apply, by component address in plan order.
type Result struct {
	Components []ComponentResult
	// StatusReports are the reports of the parts rendered during apply
	// (render.Awaited.StatusReports), by component address: the plan could not know them, and
	// the status writer reports them after the apply (SyncReports).
	StatusReports map[string][]render.StatusReport
}

// Err summarises failures: nil when every component was applied.
func (r *Result) Err() error {
	var msgs []string
	for _, c := range r.Components {
		if c.Status != Applied {
			msgs = append(msgs, c.Message())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("apply incomplete:\n  %s", strings.Join(msgs, "\n  "))
}

// Worker applies one component; the executor calls it once every dependency is applied.
type Worker func(ctx context.Context, c *plan.Component) error

// Event reports progress.
type Event struct {
	Address string
	// Status is "started", or the component's final Status.
	Status string
	Err    error
	// Duration is how long a finished component took.
	Duration time.Duration
	// Waiting lists the dependencies a "waiting" component still waits for.
	Waiting []string
}

// Schedule runs work for every component of components (graph order) once all its
// dependencies (deps, by address) are Applied, at most parallelism at a time. Components whose
// dependency failed or was blocked are Blocked with the root cause named; when ctx is cancelled
// no new component starts and the rest are Skipped. Components that are not in deps' graph
// (removed from the landscape) run after every other component, one at a time, in the given
// order; with removedFirst (destroy: what depends on the graph goes before it) they run first.
func Schedule(ctx context.Context, components []*plan.Component, deps map[string][]string, parallelism int, removedFirst bool, work Worker, events func(Event)) *Result {
	if parallelism <= 0 {
		parallelism = DefaultComponentParallelism
	}
	if events == nil {
		events = func(Event) {}
	}
	results := map[string]*ComponentResult{}
	var order []string
	var graphed, removed []*plan.Component
	for _, c := range components {
		results[c.Address] = &ComponentResult{Address: c.Address}
		order = append(order, c.Address)
		if _, inGraph := deps[c.Address]; inGraph {
			graphed = append(graphed, c)
		} else {
			removed = append(removed, c)
		}
	}

	var mu sync.Mutex
	done := map[string]chan struct{}{}
	for _, c := range components {
		done[c.Address] = make(chan struct{})
	}
	sem := make(chan struct{}, parallelism)
	run := func(c *plan.Component) {
		res := results[c.Address]
		defer close(done[c.Address])
		var pending []string
		for _, d := range deps[c.Address] {
			if _, ok := done[d]; ok {
				pending = append(pending, d)
			}
		}
		if len(pending) > 0 {
			events(Event{Address: c.Address, Status: "waiting", Waiting: pending})
		}
		for _, d := range deps[c.Address] {
			ch, ok := done[d]
			if !ok {
				continue // a dependency outside this apply (--target) is taken as it is
			}
			<-ch
			mu.Lock()
			dr := *results[d]
			mu.Unlock()
			if dr.Status != Applied {
				mu.Lock()
				res.Status = Blocked
				res.BlockedBy, res.Err = rootCause(results, d)
				if dr.Status == Skipped {
					res.Status = Skipped
				}
				mu.Unlock()
				events(Event{Address: c.Address, Status: string(res.Status), Err: res.Err})
				return
			}
		}
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired {
				<-sem
			}
			mu.Lock()
			res.Status = Skipped
			mu.Unlock()
			events(Event{Address: c.Address, Status: string(Skipped)})
			return
		}
		defer func() { <-sem }()
		events(Event{Address: c.Address, Status: "started"})
		start := time.Now()
		err := work(ctx, c)
		mu.Lock()
		res.Duration = time.Since(start)
		res.Status, res.Err = Applied, err
		if err != nil {
			res.Status = Failed
		}
		mu.Unlock()
		events(Event{Address: c.Address, Status: string(res.Status), Err: err, Duration: res.Duration})
	}
	if removedFirst {
		for _, c := range removed {
			run(c)
		}
	}
	var wg sync.WaitGroup
	for _, c := range graphed {
		wg.Add(1)
		go func() { defer wg.Done(); run(c) }()
	}
	wg.Wait()
	if !removedFirst {
		for _, c := range removed {
			run(c)
		}
	}
	out := &Result{}
	for _, addr := range order {
		out.Components = append(out.Components, *results[addr])
	}
	return out
}

// rootCause follows blocked dependencies to the component that failed.
func rootCause(results map[string]*ComponentResult, addr string) (string, error) {
	seen := map[string]bool{}
	for {
		r := results[addr]
		if r.Status != Blocked || r.BlockedBy == "" || seen[addr] {
			if r.Err == nil {
				return addr, fmt.Errorf("not applied")
			}
			return addr, r.Err
		}
		seen[addr] = true
		addr = r.BlockedBy
	}
}
