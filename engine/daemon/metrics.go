package daemon

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the daemon's Prometheus metrics. Every metric but Requests carries the label
// shard: the shard a sharded daemon's cycle reconciled (`garden`, or a seed shard's address such
// as `seed.eu1`), empty (no label, to Prometheus) for an unsharded daemon. A replica leading
// several shards serves each shard's figures apart.
type Metrics struct {
	PlanDuration  *prometheus.HistogramVec
	ApplyDuration *prometheus.HistogramVec
	Objects       *prometheus.GaugeVec
	Drifted       *prometheus.GaugeVec
	// Repaired counts drifted objects the daemon put back, for alerts on people editing what
	// the landscape owns (the gauge above is reset by the next plan).
	Repaired       *prometheus.CounterVec
	Errors         *prometheus.CounterVec
	LastSuccess    *prometheus.GaugeVec
	ComponentReady *prometheus.GaugeVec
	// Cycles counts cycles by the phase they ended in and their scope: ScopeFull (the whole
	// landscape, or shard) or ScopeTargeted (the shoots whose objects changed).
	Cycles *prometheus.CounterVec
	// Plans counts plans by where their live state came from: "cache" (the watches' informers;
	// only plans without changes end there) or "live" (reads from the API servers).
	Plans *prometheus.CounterVec
	// Requests counts the HTTP requests the daemon's clients make, by verb ("watch" for watch
	// requests, otherwise the lower-case HTTP method): with the watches running, a cycle that
	// finds nothing to do adds none. The clients serve every shard a replica leads, so this one
	// has no shard label.
	Requests *prometheus.CounterVec
}

// shardLabel is the label that names a sharded daemon's shard.
const shardLabel = "shard"

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	buckets := []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	m := &Metrics{
		PlanDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gardener_daemon_plan_duration_seconds", Help: "How long a plan of the landscape took.", Buckets: buckets,
		}, []string{shardLabel}),
		ApplyDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gardener_daemon_apply_duration_seconds", Help: "How long applying a plan took, readiness waits included.", Buckets: buckets,
		}, []string{shardLabel}),
		Objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_plan_objects", Help: "Objects of the last plan by action (create, update, replace, delete, held).",
		}, []string{shardLabel, "action"}),
		Drifted: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_drifted_objects", Help: "Objects the last plan found changed out of band.",
		}, []string{shardLabel}),
		Repaired: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_drift_repaired_total", Help: "Drifted objects put back by an applied plan.",
		}, []string{shardLabel}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_errors_total", Help: "Errors by component (\"landscape\" for an invalid landscape, \"daemon\" for the cycle itself).",
		}, []string{shardLabel, "component"}),
		LastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_last_successful_apply_timestamp_seconds", Help: "When the landscape was last applied without errors (Unix time).",
		}, []string{shardLabel}),
		ComponentReady: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_component_ready", Help: "1 when the component was applied and ready in the last apply, 0 when it failed or was blocked.",
		}, []string{shardLabel, "component"}),
		Cycles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_cycles_total", Help: "Reconcile cycles by their outcome phase and scope (full: the whole landscape or shard, targeted: the shoots whose objects changed).",
		}, []string{shardLabel, "phase", "scope"}),
		Plans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_plans_total", Help: "Plans by the source of their live state (cache: the watches' informers, live: the API servers).",
		}, []string{shardLabel, "source"}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_api_requests_total", Help: "HTTP requests to the API servers by verb (watch, get, post, put, patch, delete).",
		}, []string{"verb"}),
	}
	reg.MustRegister(m.PlanDuration, m.ApplyDuration, m.Objects, m.Drifted, m.Repaired, m.Errors, m.LastSuccess, m.ComponentReady, m.Cycles, m.Plans, m.Requests)
	return m
}

// shardMetrics are the metrics of one daemon: those of its shard.
type shardMetrics struct {
	PlanDuration, ApplyDuration prometheus.Observer
	Objects, ComponentReady     *prometheus.GaugeVec
	Drifted, LastSuccess        prometheus.Gauge
	Repaired                    prometheus.Counter
	Errors, Cycles, Plans       *prometheus.CounterVec
}

// of returns the metrics of shard ("" unsharded). Known label values start at zero, so that
// every family is served from the daemon's start and rate() and increase() see the first event.
func (m *Metrics) of(shard string) shardMetrics {
	if m == nil {
		m = NewMetrics(prometheus.NewRegistry()) // counted nowhere
	}
	l := prometheus.Labels{shardLabel: shard}
	sm := shardMetrics{
		PlanDuration: m.PlanDuration.With(l), ApplyDuration: m.ApplyDuration.With(l),
		Objects: m.Objects.MustCurryWith(l), ComponentReady: m.ComponentReady.MustCurryWith(l),
		Drifted: m.Drifted.With(l), LastSuccess: m.LastSuccess.With(l), Repaired: m.Repaired.With(l),
		Errors: m.Errors.MustCurryWith(l), Cycles: m.Cycles.MustCurryWith(l), Plans: m.Plans.MustCurryWith(l),
	}
	for _, phase := range []string{PhaseApplied, PhaseUpToDate, PhasePlanned, PhaseWaitingForApproval, PhaseWaitingForLock, PhaseWaitingForShard, PhaseFailed, PhaseInvalid} {
		sm.Cycles.WithLabelValues(phase, ScopeFull)
	}
	for _, c := range []string{"landscape", "daemon"} {
		sm.Errors.WithLabelValues(c)
	}
	for _, source := range []string{"cache", "live"} {
		sm.Plans.WithLabelValues(source)
	}
	return sm
}

// CountRequests wraps a client's transport so that its requests count in Requests; the command
// passes it as cluster.Options.WrapTransport.
func (m *Metrics) CountRequests(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{next: rt, requests: m.Requests}
}

type countingTransport struct {
	next     http.RoundTripper
	requests *prometheus.CounterVec
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.requests.WithLabelValues(verbOf(r)).Inc()
	return t.next.RoundTrip(r)
}

// verbOf names a request's verb for Requests.
func verbOf(r *http.Request) string {
	if r.Method == http.MethodGet {
		if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
			return "watch"
		}
		return "get"
	}
	return strings.ToLower(r.Method)
}
