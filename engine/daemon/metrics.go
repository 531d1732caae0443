package daemon

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the daemon's Prometheus metrics.
type Metrics struct {
	PlanDuration   prometheus.Histogram
	ApplyDuration  prometheus.Histogram
	Objects        *prometheus.GaugeVec
	Drifted        prometheus.Gauge
	Errors         *prometheus.CounterVec
	LastSuccess    prometheus.Gauge
	ComponentReady *prometheus.GaugeVec
	Cycles         *prometheus.CounterVec
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
	}
	reg.MustRegister(m.PlanDuration, m.ApplyDuration, m.Objects, m.Drifted, m.Errors, m.LastSuccess, m.ComponentReady, m.Cycles)
	return m
}
