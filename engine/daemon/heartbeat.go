package daemon

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/report"
)

// minHeartbeat bounds how often the daemon renews a Lease, whatever its duration says.
const minHeartbeat = 2 * time.Second

// heartbeats renews the heartbeat Leases of the seeds the engine manages between cycles, as
// gardenlet's seed-lease controller does every leaseDurationSeconds
// (pkg/gardenlet/controller/seed/lease at Gardener v1.120.0): without them
// gardener-controller-manager turns the seed's GardenletReady Unknown after its monitor period,
// and later the conditions of its shoots, and gardener-scheduler picks it no more. Each cycle
// hands over the reports and the connections it planned with.
type heartbeats struct {
	mu      sync.Mutex
	writer  *report.Writer
	reports []render.Report
	wake    chan struct{}
}

func newHeartbeats() *heartbeats { return &heartbeats{wake: make(chan struct{}, 1)} }

// keepHeartbeats hands the outcome's heartbeats to the renewal loop.
func (d *Daemon) keepHeartbeats(out *planner.Outcome) {
	var reports []render.Report
	for _, rd := range out.Rendered {
		for _, r := range rd.Reports {
			if r.Heartbeat != nil {
				reports = append(reports, r)
			}
		}
	}
	d.heartbeats.set(apply.NewReportWriter(out), reports)
}

func (h *heartbeats) set(w *report.Writer, reports []render.Report) {
	h.mu.Lock()
	h.writer, h.reports = w, reports
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// interval is the shortest Lease duration among the reports, at least minHeartbeat.
func (h *heartbeats) interval() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	every := time.Duration(0)
	for _, r := range h.reports {
		if d := r.Heartbeat.Duration; every == 0 || d < every {
			every = d
		}
	}
	return max(every, minHeartbeat)
}

// run renews every heartbeat each interval until ctx ends.
func (h *heartbeats) run(ctx context.Context, warn func(error)) {
	timer := time.NewTimer(h.interval())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-timer.C:
			h.renew(ctx, warn)
		}
		timer.Reset(h.interval())
	}
}

func (h *heartbeats) renew(ctx context.Context, warn func(error)) {
	h.mu.Lock()
	w, reports := h.writer, h.reports
	h.mu.Unlock()
	for _, r := range reports {
		if err := w.Renew(ctx, r); err != nil && !errors.Is(err, report.ErrNotFound) && ctx.Err() == nil {
			warn(err)
		}
	}
}

// reports says whether the daemon reports as gardenlet: not with the plan-only policy, which
// writes nothing.
func (d *Daemon) reports() bool { return d.o.Policy != PolicyPlanOnly }

// warnReport logs a report the daemon could not write; the next cycle or heartbeat tries again.
func (d *Daemon) warnReport(err error) {
	d.o.Log.Info("a status report was not written", "error", err.Error())
}
