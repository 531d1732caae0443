package daemon_test

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

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// eveningAt renders the manifests component "settings" (ConfigMap "clock") with a data key that
// says whether it is before or after 20:00 UTC of the evaluation time, and says when that
// changes next: a stand-in for any behaviour that depends on time (a hibernation schedule),
// driven by the daemon's clock.
func eveningAt(next render.Func) render.Func {
	return func(in render.Input) (*render.Output, error) {
		out, err := next(in)
		if err != nil || in.Address != "component.manifests.settings" {
			return out, err
		}
		day := time.Date(in.Now.Year(), in.Now.Month(), in.Now.Day(), 0, 0, 0, 0, time.UTC)
		evening := day.Add(20 * time.Hour)
		phase, change := "day", evening
		if !in.Now.Before(evening) {
			phase, change = "evening", day.AddDate(0, 0, 1)
		}
		for _, o := range out.Objects {
			o.Object.Object["data"] = map[string]any{"phase": phase}
		}
		out.Revisit = change
		return out, nil
	}
}

// The daemon runs a cycle when the landscape's rendering changes by time alone, without polling:
// its clock stands 15 seconds before 20:00, the poll and the resync are an hour away, and the
// ConfigMap still turns to "evening" right after 20:00 on the daemon's clock.
func TestDaemonRunsAtTheNextScheduledChange(t *testing.T) {
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"daemon-clock-state", "daemon-clock-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": namedLandscape("daemon-clock", "clock")})
	renderers := catalog.Renderers()
	renderers["manifests"] = eveningAt(renderers["manifests"])

	realStart := time.Now()
	evening := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	offset := evening.Add(-15 * time.Second).Sub(realStart)
	clock := func() time.Time { return time.Now().Add(offset) }
	status := daemon.StatusStore{Client: cs, Namespace: "daemon-clock-status", Name: "gardener-daemon-status"}
	clusterOpts := cluster.Options{NoDiskCache: true}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyAuto,
		Resync: time.Hour, Poll: time.Hour, RetryLock: time.Second, Holder: "daemon-clock-test",
		Planner: func(dir string) planner.Options {
			o := landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
			o.Renderers = renderers
			return o
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: time.Minute},
		Status:  status, Events: &landscapetest.Events{}, Metrics: daemon.NewMetrics(prometheus.NewRegistry()), Log: testr.New(t),
		Now: clock, WatchDrift: true,
	})
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx) }()

	phase := func() string {
		cm, err := cs.CoreV1().ConfigMaps("daemon-clock").Get(ctx, "clock", metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return cm.Data["phase"]
	}
	// The first cycle applies "day" (a rerun finds last run's "evening" and changes it back),
	// unless a slow machine took it past 20:00 on the daemon's clock.
	require.Eventually(t, func() bool { return phase() == "day" || !clock().Before(evening) }, 60*time.Second, 50*time.Millisecond,
		"the first cycle applies the landscape: %+v", d.Last())
	if clock().Before(evening) {
		require.Eventually(t, func() bool { return d.Last().NextChange.Equal(evening) }, 10*time.Second, 20*time.Millisecond,
			"the cycle names the next scheduled change: %+v", d.Last())
		require.Eventually(t, func() bool {
			data, _, err := status.Read(ctx)
			return err == nil && data["next-scheduled-change"] == "2026-11-23T20:00:00Z"
		}, 10*time.Second, 50*time.Millisecond, "the status ConfigMap names the next scheduled change")
	}
	require.Eventually(t, func() bool { return phase() == "evening" }, 45*time.Second, 50*time.Millisecond,
		"a cycle ran at 20:00 on the daemon's clock; last: %+v", d.Last())
	assert.False(t, clock().Before(evening), "not before its time")
	assert.Less(t, time.Since(realStart), time.Minute, "long before the poll or the resync (an hour)")
	midnight := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	require.Eventually(t, func() bool { return d.Last().NextChange.Equal(midnight) }, 10*time.Second, 20*time.Millisecond,
		"and the next one is at midnight: %+v", d.Last())
	cancel()
	require.NoError(t, <-done)
}
