package garden

import (
	"context"
	"strings"
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
// cloud profile. Poll and resync are an hour away; the daemon watches what the landscape owns, as
// `gardener daemon` does by default. The first cycle names the schedule's start as
// the next change, when gardener-controller-manager's hibernation loop runs; here the test writes
// what that loop and the maintenance loop would (as their field manager) once the daemon's clock
// passed their times, and the daemon follows each change of the Shoot its watch sees: the cycle
// after the flip hibernates qa's control plane, the one after the raise runs dev's on the new
// versions (inside dev's window, to which dev confines its rollouts), both without an approval,
// and neither writes the Shoots back.
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
		Events:  ev, Metrics: metrics, Log: testr.New(t), Now: clock, WatchDrift: true,
	})
	daemonCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- d.Start(daemonCtx) }()
	cycles := cycleCounter(t, reg)

	// The first cycle finds the landscape applied and names the schedule's start as the next
	// change: gardener-controller-manager's hibernation loop runs 100 ms after it (dev's window
	// comes a minute later).
	// A cycle's status is published a moment after it is counted: wait for the status.
	require.Eventually(t, func() bool { return !d.Last().PlanTime.IsZero() }, 2*time.Minute, 100*time.Millisecond, "the first cycle")
	first := d.Last()
	require.GreaterOrEqual(t, cycles(), float64(1))
	require.Equal(t, daemon.PhaseUpToDate, first.Phase, "%+v", first)
	require.True(t, clock().Before(start), "the first cycle ended before the start; a slower machine needs a longer lead: %+v", first)
	assert.Equal(t, start.Add(100*time.Millisecond), first.NextChange.UTC())

	// At 21:59 on the daemon's clock gardener-controller-manager flips qa; the cycle the flip
	// triggers hibernates the control plane because the Shoot says so.
	require.Eventually(t, func() bool { return !clock().Before(start) }, 2*time.Minute, 100*time.Millisecond)
	flipped := clock()
	gcmHibernates(t, vdyn, "qa", true, start)
	cycleApplied(t, d, flipped, "the Shoot says hibernated", func() bool { return etcdMain() == 0 })
	require.Eventually(t, func() bool { return strings.Contains(ev.All(), "Normal Applied") }, time.Minute, 100*time.Millisecond, "hibernating waits for no approval")
	assert.True(t, qaHibernation(t, vdyn), "the daemon keeps gardener-controller-manager's flip")
	assert.Equal(t, []string{"1.31.3", "1.0.1"}, devVersions(t, vdyn), "dev still waits for its window")

	// In dev's window gardener-controller-manager raises dev; the cycle the raise triggers runs
	// the control plane on the new versions and deletes the old kube-proxy without an approval.
	require.Eventually(t, func() bool { return !clock().Before(window) }, 2*time.Minute, 100*time.Millisecond)
	raised := clock()
	gcmMaintains(t, vdyn, "1.31.4", "1.0.2", "All maintenance operations successful.", window.Add(5*time.Minute))
	devOn1314 := func() bool {
		for _, name := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			d, err := runtimeCS.AppsV1().Deployments("shoot--local--dev").Get(ctx, name, metav1.GetOptions{})
			require.NoError(t, err)
			if d.Spec.Template.Spec.Containers[0].Image != "registry.k8s.io/"+name+":v1.31.4" {
				return false
			}
		}
		return true
	}
	cycleApplied(t, d, raised, "kube-apiserver:v1.31.4", devOn1314)
	assert.Equal(t, []string{"1.31.4", "1.0.2"}, devVersions(t, vdyn), "the daemon keeps the raised versions")
	assert.Equal(t, int64(0), etcdMain(), "qa sleeps on")

	stop()
	require.NoError(t, <-done)
	assert.GreaterOrEqual(t, cycles(), float64(3), "the first cycle and one after each change of a Shoot at least")
	assert.Less(t, time.Since(realStart), 10*time.Minute)

	// The schedule's end wakes qa up again, and the steps that follow get qa's schedule in Tokyo
	// back (schedules edited outside a trigger's deadline leave the shoot as it is).
	gcmHibernates(t, vdyn, "qa", false, time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 0, 0, time.UTC))
	applyAt(t, dir, time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 30, 0, time.UTC))
	assert.Equal(t, int64(1), etcdMain(), "06:00 woke qa up")
	editLandscape(t, dir, "shoots.hcl", "start    = \"59 21 * * 1-5\"\n      end      = \"0 6 * * 1-5\"\n      location = \"UTC\"",
		"start    = \"0 20 * * 1-5\"\n      end      = \"0 7 * * 1-5\"\n      location = \"Asia/Tokyo\"")
	applyAt(t, dir, time.Date(day.Year(), day.Month(), day.Day()+1, 6, 1, 0, 0, time.UTC))
	assert.Equal(t, int64(1), etcdMain(), "qa stays awake")
}

// cycleApplied waits until a cycle that began after since (on the daemon's clock), so after a
// change made right after it, ended with the change applied: the last cycle applied a plan that
// mentions marker, or one after it found the effect in place and nothing to do.
func cycleApplied(t *testing.T, d *daemon.Daemon, since time.Time, marker string, effect func() bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		last := d.Last()
		if !last.PlanTime.After(since) {
			return false
		}
		return (last.Phase == daemon.PhaseApplied && strings.Contains(last.PlanJSON, marker)) ||
			(last.Phase == daemon.PhaseUpToDate && effect())
	}, 3*time.Minute, 100*time.Millisecond, "a cycle after %s applies %q; last: %+v", since, marker, d.Last())
	require.True(t, effect(), "applied: %s", marker)
}

// cycleCounter reads the daemon's cycle count from its metrics registry.
func cycleCounter(t *testing.T, reg *prometheus.Registry) func() float64 {
	return func() float64 {
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
}
