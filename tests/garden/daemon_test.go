package garden

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// daemonControlLoops runs the daemon on the local landscape with its clock set 30 seconds before
// a hibernation schedule's start (qa, 21:59 UTC on a weekday) and a minute before dev's
// maintenance window (22:00 UTC), with a new patch version and machine image version in the
// cloud profile. Poll and resync are an hour away and the daemon watches nothing: the cycle at
// 21:59 that hibernates qa and the one at 22:00 that updates dev's versions run because the
// plans named those times, and no other cycle runs. qa's schedule is as before at the end.
func daemonControlLoops(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	runtimeCS, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	rdyn, vdyn := dyn(t, c.Plane(localcluster.RuntimePlane)), dyn(t, c.Plane(localcluster.VirtualGardenPlane))

	// A weekday two weeks ahead, later than every time the other steps plan at: the triggers
	// carried out here are then the latest a Shoot records, and the earlier times those steps
	// plan at find no trigger newer than them to carry out.
	day := time.Now().UTC().AddDate(0, 0, 14)
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday || day.Weekday() == time.Friday {
		day = day.AddDate(0, 0, 1)
	}
	at := func(hour, minute, second int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), hour, minute, second, 0, time.UTC)
	}
	start, window := at(21, 59, 0), at(22, 0, 0)
	etcdMain := func() int64 { return qaEtcdMainReplicas(t, rdyn) }

	// Set up by hand, as a user's apply before the daemon takes over: qa's schedule moves to
	// 21:59-06:00 UTC on weekdays, and the cloud profile offers 1.31.4 and image 1.0.2 (and
	// deprecates the versions they replace: Gardener allows one supported version per minor).
	editLandscape(t, dir, "shoots.hcl", "start    = \"0 20 * * 1-5\"\n      end      = \"0 7 * * 1-5\"\n      location = \"Asia/Tokyo\"",
		"start    = \"59 21 * * 1-5\"\n      end      = \"0 6 * * 1-5\"\n      location = \"UTC\"")
	editLandscape(t, dir, "gardener-api.hcl", "  kubernetes_version \"1.31.3\" {\n    classification = \"supported\"\n  }",
		"  kubernetes_version \"1.31.3\" {\n    classification = \"deprecated\"\n  }\n\n  kubernetes_version \"1.31.4\" {\n    classification = \"supported\"\n  }")
	editLandscape(t, dir, "gardener-api.hcl", "    version \"1.0.1\" {\n      classification = \"supported\"\n    }",
		"    version \"1.0.1\" {\n      classification = \"deprecated\"\n    }\n\n    version \"1.0.2\" {\n      classification = \"supported\"\n    }")
	applyAt(t, dir, at(21, 50, 0))
	require.Equal(t, int64(1), etcdMain(), "qa is awake before the start")
	require.Equal(t, []string{"1.31.3", "1.0.1"}, devVersions(t, vdyn), "dev waits for its window")

	_, err = runtimeCS.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden-daemon-status"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	realStart := time.Now()
	offset := start.Add(-30 * time.Second).Sub(realStart)
	clock := func() time.Time { return time.Now().Add(offset) }
	reg := prometheus.NewRegistry()
	metrics := daemon.NewMetrics(reg)
	clusterOpts := cluster.Options{NoDiskCache: true}
	ev := &landscapetest.Events{}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
		Resync: time.Hour, Poll: time.Hour, RetryLock: time.Second, Holder: "garden-daemon-test",
		Planner: func(dir string) planner.Options {
			return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: 2 * time.Minute},
		Status:  daemon.StatusStore{Client: runtimeCS, Namespace: "garden-daemon-status", Name: "gardener-daemon-status"},
		Events:  ev, Metrics: metrics, Log: testr.New(t), Now: clock,
	})
	daemonCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- d.Start(daemonCtx) }()
	cycles := func() float64 {
		families, err := reg.Gather()
		require.NoError(t, err)
		total := 0.0
		for _, f := range families {
			if f.GetName() == "gardener_daemon_cycles_total" {
				for _, m := range f.GetMetric() {
					total += m.GetCounter().GetValue()
				}
			}
		}
		return total
	}

	// The first cycle finds the landscape applied and names the schedule's start as the next
	// change (dev's window comes a minute later).
	// A cycle's status is published a moment after it is counted: wait for the status.
	require.Eventually(t, func() bool { return !d.Last().PlanTime.IsZero() }, 2*time.Minute, 100*time.Millisecond, "the first cycle")
	first := d.Last()
	require.Equal(t, float64(1), cycles())
	require.Equal(t, daemon.PhaseUpToDate, first.Phase, "%+v", first)
	require.True(t, clock().Before(start), "the first cycle ended before the start; a slower machine needs a longer lead: %+v", first)
	assert.Equal(t, start, first.NextChange.UTC())

	// At 21:59 on the daemon's clock, a cycle hibernates qa: the plan names the schedule, and
	// hibernation is no destructive change that waits for an approval.
	require.Eventually(t, func() bool { return d.Last().PlanTime.After(first.PlanTime) }, 3*time.Minute, 100*time.Millisecond,
		"a cycle at the start; last: %+v", d.Last())
	hibernated := d.Last()
	assert.False(t, hibernated.PlanTime.Before(start), "not before its time: %s", hibernated.PlanTime)
	require.Equal(t, daemon.PhaseApplied, hibernated.Phase, "%+v", hibernated)
	assert.Contains(t, hibernated.PlanJSON, `hibernation schedule 1 (start \"59 21 * * 1-5\", end \"0 6 * * 1-5\" in UTC) at `+start.Format(time.RFC3339)+` hibernates the shoot`)
	assert.Equal(t, int64(0), etcdMain(), "the start hibernated qa")
	assert.Equal(t, []string{"1.31.3", "1.0.1"}, devVersions(t, vdyn), "dev still waits for its window")
	assert.Equal(t, window, hibernated.NextChange.UTC(), "next comes dev's window")

	// At 22:00, the window's cycle moves dev to the newest patch version and image version.
	require.Eventually(t, func() bool { return d.Last().PlanTime.After(hibernated.PlanTime) }, 3*time.Minute, 100*time.Millisecond,
		"a cycle at the window's begin; last: %+v", d.Last())
	maintained := d.Last()
	assert.False(t, maintained.PlanTime.Before(window), "not before its time: %s", maintained.PlanTime)
	require.Equal(t, daemon.PhaseApplied, maintained.Phase, "%+v", maintained)
	assert.Equal(t, []string{"1.31.4", "1.0.2"}, devVersions(t, vdyn), "the window updated dev")
	assert.Equal(t, int64(0), etcdMain(), "qa sleeps on")
	assert.True(t, maintained.NextChange.After(window), "the next change is later: %s", maintained.NextChange)
	assert.Contains(t, ev.All(), "Normal Applied")

	stop()
	require.NoError(t, <-done)
	assert.Equal(t, float64(3), cycles(), "no cycle without a cause: poll and resync are an hour away")
	assert.Less(t, time.Since(realStart), 10*time.Minute)

	// The schedule's end wakes qa up again, and the steps that follow get qa's schedule in Tokyo
	// back (edited schedules leave the shoot as it is).
	applyAt(t, dir, time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 30, 0, time.UTC))
	assert.Equal(t, int64(1), etcdMain(), "06:00 woke qa up")
	editLandscape(t, dir, "shoots.hcl", "start    = \"59 21 * * 1-5\"\n      end      = \"0 6 * * 1-5\"\n      location = \"UTC\"",
		"start    = \"0 20 * * 1-5\"\n      end      = \"0 7 * * 1-5\"\n      location = \"Asia/Tokyo\"")
	applyAt(t, dir, time.Date(day.Year(), day.Month(), day.Day()+1, 6, 1, 0, 0, time.UTC))
	assert.Equal(t, int64(1), etcdMain(), "qa stays awake")
}
