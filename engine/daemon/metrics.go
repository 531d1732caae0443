package daemon

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the daemon's Prometheus metrics.
type Metrics struct {
	PlanDuration  prometheus.Histogram
	ApplyDuration prometheus.Histogram
	Objects       *prometheus.GaugeVec
	Drifted       prometheus.Gauge
	// Repaired counts drifted objects the daemon put back, for alerts on people editing what
	// the landscape owns (the gauge above is reset by the next plan).
	Repaired       prometheus.Counter
	Errors         *prometheus.CounterVec
	LastSuccess    prometheus.Gauge
	ComponentReady *prometheus.GaugeVec
	Cycles         *prometheus.CounterVec
	// Plans counts plans by where their live state came from: "cache" (the watches' informers;
	// only plans without changes end there) or "live" (reads from the API servers).
	Plans *prometheus.CounterVec
	// Requests counts the HTTP requests the daemon's clients make, by verb ("watch" for watch
	// requests, otherwise the lower-case HTTP method): with the watches running, a cycle that
	// finds nothing to do adds none.
	Requests *prometheus.CounterVec
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	buckets := []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	m := &Metrics{
		PlanDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gardener_daemon_plan_duration_seconds", Help: "How long a plan of the landscape took.", Buckets: buckets,
		}),
		ApplyDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gardener_daemon_apply_duration_seconds", Help: "How long applying a plan took, readiness waits included.", Buckets: buckets,
		}),
		Objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_plan_objects", Help: "Objects of the last plan by action (create, update, replace, delete, held).",
		}, []string{"action"}),
		Drifted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gardener_daemon_drifted_objects", Help: "Objects the last plan found changed out of band.",
		}),
		Repaired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gardener_daemon_drift_repaired_total", Help: "Drifted objects put back by an applied plan.",
		}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_errors_total", Help: "Errors by component (\"landscape\" for an invalid landscape, \"daemon\" for the cycle itself).",
		}, []string{"component"}),
		LastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gardener_daemon_last_successful_apply_timestamp_seconds", Help: "When the landscape was last applied without errors (Unix time).",
		}),
		ComponentReady: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gardener_daemon_component_ready", Help: "1 when the component was applied and ready in the last apply, 0 when it failed or was blocked.",
		}, []string{"component"}),
		Cycles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_cycles_total", Help: "Reconcile cycles by their outcome phase.",
		}, []string{"phase"}),
		Plans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_plans_total", Help: "Plans by the source of their live state (cache: the watches' informers, live: the API servers).",
		}, []string{"source"}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gardener_daemon_api_requests_total", Help: "HTTP requests to the API servers by verb (watch, get, post, put, patch, delete).",
		}, []string{"verb"}),
	}
	// Known label values start at zero, so that every family is served from the start and
	// rate() and increase() see the first event.
	for _, phase := range []string{PhaseApplied, PhaseUpToDate, PhasePlanned, PhaseWaitingForApproval, PhaseWaitingForLock, PhaseFailed, PhaseInvalid} {
		m.Cycles.WithLabelValues(phase)
	}
	for _, c := range []string{"landscape", "daemon"} {
		m.Errors.WithLabelValues(c)
	}
	for _, source := range []string{"cache", "live"} {
		m.Plans.WithLabelValues(source)
	}
	reg.MustRegister(m.PlanDuration, m.ApplyDuration, m.Objects, m.Drifted, m.Repaired, m.Errors, m.LastSuccess, m.ComponentReady, m.Cycles, m.Plans, m.Requests)
	return m
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
