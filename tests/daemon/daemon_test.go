// Package daemon_test runs the daemon against the local control plane.
package daemon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }

func landscape(configMaps ...string) string { return namedLandscape("daemon-test", configMaps...) }

// namedLandscape is a landscape called name with its state in namespace <name>-state, a
// namespace <name>, and in it a ConfigMap per name in configMaps.
func namedLandscape(name string, configMaps ...string) string {
	var objs []string
	for _, n := range configMaps {
		objs = append(objs, fmt.Sprintf(`{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = %q }, data = { owner = "daemon" } }`, n))
	}
	return fmt.Sprintf(`landscape %[1]q {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "%[1]s-state"
  }
}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } }]
}

component "manifests" "settings" {
  cluster    = cluster.runtime
  namespace  = %[1]q
  depends_on = [component.manifests.namespace]
  objects    = [%[2]s]
}
`, name, strings.Join(objs, ", "))
}

// The daemon applies the landscape, repairs drift, waits for approval of a destructive change,
// keeps the clusters as they are while the landscape has errors, waits for a manual apply's
// lock, and reports all of it on its status ConfigMap, as Events and as metrics.
func TestDaemonOnTheLocalControlPlane(t *testing.T) {
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"daemon-test-state", "daemon-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": landscape("a", "b")})
	status := daemon.StatusStore{Client: cs, Namespace: "daemon-status", Name: "gardener-daemon-status"}
	reg := prometheus.NewRegistry()
	metrics := daemon.NewMetrics(reg)
	clusterOpts := cluster.Options{NoDiskCache: true, WrapTransport: metrics.CountRequests}
	ev := &landscapetest.Events{}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
		Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: "daemon-test",
		Planner: func(dir string) planner.Options {
			return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: time.Minute},
		Status:  status, Events: ev, Metrics: metrics, Log: testr.New(t), WatchDrift: true,
	})
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx) }()
	counter := func(name, label, value string) float64 {
		families, err := reg.Gather()
		require.NoError(t, err)
		total := 0.0
		for _, f := range families {
			if f.GetName() != name {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if (label == "" || l.GetName() == label) && (value == "" || l.GetValue() == value) {
						total += m.GetCounter().GetValue()
						break
					}
				}
			}
		}
		return total
	}
	// waitPhase waits for a cycle ending in phase after the action that follows mark(); later
	// cycles (planned from the caches within milliseconds) may have ended since.
	phaseCount := func(phase string) float64 { return counter("gardener_daemon_cycles_total", "phase", phase) }
	marked := map[string]float64{}
	mark := func() {
		marked = map[string]float64{}
		for _, p := range []string{daemon.PhaseApplied, daemon.PhaseWaitingForApproval, daemon.PhaseInvalid, daemon.PhaseWaitingForLock} {
			marked[p] = phaseCount(p)
		}
	}
	waitPhase := func(phase string) daemon.Status {
		t.Helper()
		require.Eventually(t, func() bool { return phaseCount(phase) > marked[phase] }, 90*time.Second, 50*time.Millisecond,
			"waiting for phase %s; last: %+v", phase, d.Last())
		return d.Last()
	}
	// published waits for the status ConfigMap to show the last cycle, which ended in phase (the
	// daemon counts a cycle a moment before its status is written).
	published := func(phase string) map[string]string {
		t.Helper()
		var data map[string]string
		require.Eventually(t, func() bool {
			var err error
			data, _, err = status.Read(ctx)
			require.NoError(t, err)
			last := d.Last()
			return data["phase"] == phase && data["last-plan-hash"] == last.PlanHash && data["errors"] == last.Errors
		}, 10*time.Second, 50*time.Millisecond, "the status shows phase %s: %v", phase, data)
		return data
	}
	configMap := func(name string) (*corev1.ConfigMap, error) {
		return cs.CoreV1().ConfigMaps("daemon-test").Get(ctx, name, metav1.GetOptions{})
	}

	// The first cycle applies the landscape.
	waitPhase(daemon.PhaseApplied)
	for _, n := range []string{"a", "b"} {
		_, err := configMap(n)
		require.NoError(t, err, "ConfigMap %s", n)
	}
	data := published(daemon.PhaseApplied)
	assert.Contains(t, data["last-plan-summary"], "Plan: 3 to add")

	// With the watches synced, a cycle that finds nothing to do plans from their caches and
	// makes no request at all: no LIST, no GET, no lock, no status write.
	requests := func() float64 {
		return counter("gardener_daemon_api_requests_total", "", "") - counter("gardener_daemon_api_requests_total", "verb", "watch")
	}
	triggerCycle := func() {
		t.Helper()
		before := counter("gardener_daemon_cycles_total", "", "")
		d.Trigger()
		require.Eventually(t, func() bool { return counter("gardener_daemon_cycles_total", "", "") > before }, 30*time.Second, 20*time.Millisecond)
	}
	// settle waits until no cycle runs for half a second: a trigger counted by the cycle of
	// another (the watches ask for one once they have synced) is not left pending.
	settle := func() {
		t.Helper()
		require.Eventually(t, func() bool {
			before := counter("gardener_daemon_cycles_total", "", "")
			time.Sleep(500 * time.Millisecond)
			return counter("gardener_daemon_cycles_total", "", "") == before
		}, 30*time.Second, 10*time.Millisecond, "the daemon settles")
	}
	require.Eventually(t, func() bool {
		cached := counter("gardener_daemon_plans_total", "source", "cache")
		triggerCycle()
		return counter("gardener_daemon_plans_total", "source", "cache") > cached
	}, 30*time.Second, 200*time.Millisecond, "a cycle plans from the caches once the watches have synced")
	settle()
	assert.Equal(t, daemon.PhaseUpToDate, d.Last().Phase)
	before := requests()
	triggerCycle()
	settle()
	assert.Equal(t, daemon.PhaseUpToDate, d.Last().Phase)
	assert.Equal(t, before, requests(), "a cycle with nothing to do makes no request")

	// Drift (a field the landscape owns removed out of band) is seen by the daemon's watch and
	// repaired within seconds, without approval: the repair deletes nothing. The resync is an
	// hour away.
	edited := time.Now()
	_, err = cs.CoreV1().ConfigMaps("daemon-test").Patch(ctx, "a", types.JSONPatchType, []byte(`[{"op":"remove","path":"/data/owner"}]`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cm, err := configMap("a")
		return err == nil && cm.Data["owner"] == "daemon"
	}, 10*time.Second, 100*time.Millisecond, "the drift is repaired")
	t.Logf("drift repaired %s after the edit", time.Since(edited).Round(100*time.Millisecond))
	// The daemon's own writes do not wake it up again: no cycles follow without a cause.
	cycles := func() float64 { return counter("gardener_daemon_cycles_total", "", "") }
	require.Eventually(t, func() bool { return d.Last().Phase == daemon.PhaseApplied && len(d.Last().Drifted) > 0 }, 10*time.Second, 50*time.Millisecond)
	settled := cycles()
	time.Sleep(3 * time.Second)
	assert.Equal(t, settled, cycles(), "no cycle without a cause")
	var s daemon.Status
	require.Eventually(t, func() bool { s = d.Last(); return s.Phase == daemon.PhaseApplied && len(s.Drifted) > 0 }, 30*time.Second, 100*time.Millisecond)
	assert.Equal(t, []string{"component.manifests.settings ConfigMap daemon-test/a (runtime)"}, s.Drifted)
	require.Eventually(t, func() bool {
		return strings.Contains(ev.All(), "Normal Applied: the plan was applied, repairing 1 drifted object(s)")
	}, 10*time.Second, 100*time.Millisecond, "an Event records the repair: %s", ev.All())

	// Removing b deletes it: the daemon waits for an approval of exactly that plan.
	mark()
	landscapetest.Write(t, dir, map[string]string{"main.hcl": landscape("a")})
	s = waitPhase(daemon.PhaseWaitingForApproval)
	published(daemon.PhaseWaitingForApproval)
	assert.Contains(t, s.Message, "gardener approve "+s.PlanHash)
	_, err = configMap("b")
	require.NoError(t, err, "nothing is deleted before the approval")
	mark()
	require.NoError(t, status.Approve(ctx, s.PlanHash))
	waitPhase(daemon.PhaseApplied)
	_, err = configMap("b")
	assert.True(t, apierrors.IsNotFound(err), "approved, b is deleted: %v", err)

	// A landscape with an error changes nothing and says where the error is.
	mark()
	landscapetest.Write(t, dir, map[string]string{"main.hcl": landscape("a") + "\ncomponent \"manifests\" \"broken\" {\n  cluster = cluster.nowhere\n}\n"})
	s = waitPhase(daemon.PhaseInvalid)
	assert.Contains(t, s.Errors, "main.hcl")
	assert.Contains(t, s.Errors, "nowhere")
	_, err = configMap("a")
	assert.NoError(t, err, "the clusters keep the last applied version")
	require.Eventually(t, func() bool { return strings.Contains(ev.All(), "Warning Invalid") }, 10*time.Second, 100*time.Millisecond)
	// So does a syntax error, reported with its line and column; the status ConfigMap says it.
	mark()
	landscapetest.Write(t, dir, map[string]string{"main.hcl": landscape("a") + "\ncomponent \"manifests\" \"unclosed\" {\n  cluster = cluster.runtime\n"})
	s = waitPhase(daemon.PhaseInvalid)
	assert.Contains(t, s.Errors, "Unclosed configuration block")
	assert.Contains(t, s.Errors, "on "+filepath.Join(dir, "main.hcl")+" line 25", "named where the user keeps the file, not in the daemon's snapshot")
	data = published(daemon.PhaseInvalid)
	assert.Equal(t, s.Errors, data["errors"])
	_, err = configMap("a")
	assert.NoError(t, err, "the clusters keep the last applied version")

	// A hostile landscape does not crash the daemon, which always runs confined: a YAML alias
	// bomb, and a link to a file outside the landscape directory (the pod's service account
	// token, here a file beside the directory), are reported invalid, and the daemon goes on.
	secret := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(secret, []byte("s3cr3t-token"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "token")))
	laughs := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for _, c := range "bcdefghi" {
		p := string(c - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	mark()
	landscapetest.Write(t, dir, map[string]string{"laughs.yaml": laughs, "main.hcl": landscape("a") +
		"\nlocals {\n  bomb  = yamldecode(file(\"laughs.yaml\"))\n  token = file(\"token\")\n}\n"})
	s = waitPhase(daemon.PhaseInvalid)
	errs := strings.Join(strings.Fields(s.Errors), " ")
	assert.Contains(t, errs, "its aliases expand the document")
	assert.Contains(t, errs, "token is a symbolic link to "+secret+", outside the landscape directory")
	assert.NotContains(t, s.Errors, "s3cr3t")
	assert.Equal(t, s.Errors, published(daemon.PhaseInvalid)["errors"])
	_, err = configMap("a")
	assert.NoError(t, err, "the clusters keep the last applied version")
	require.NoError(t, os.Remove(filepath.Join(dir, "token")))
	landscapetest.Write(t, dir, map[string]string{"laughs.yaml": ""})

	// A manual apply holds the state lock: the daemon waits and goes on once it is released.
	// The lock is taken (through a copy of the landscape, same state) before the change the
	// daemon is to apply.
	manual, diags := config.Load(landscapetest.Dir(t, map[string]string{"main.hcl": landscape("a")}), catalog.Schemas(), config.InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	backend, err := planner.OpenState(manual, cluster.Options{NoDiskCache: true})
	require.NoError(t, err)
	lock, err := backend.Lock(ctx, state.LockInfo{Holder: "someone@laptop", Operation: "apply"})
	require.NoError(t, err)
	mark()
	landscapetest.Write(t, dir, map[string]string{"main.hcl": landscape("a", "c")})
	s = waitPhase(daemon.PhaseWaitingForLock)
	assert.Contains(t, s.Message, "someone@laptop")
	mark()
	require.NoError(t, lock.Unlock(ctx))
	waitPhase(daemon.PhaseApplied)
	_, err = configMap("c")
	assert.NoError(t, err, "the daemon applied once the lock was free")

	// The metrics say what happened.
	families, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, n := range []string{"gardener_daemon_plan_duration_seconds", "gardener_daemon_apply_duration_seconds", "gardener_daemon_plan_objects",
		"gardener_daemon_drifted_objects", "gardener_daemon_errors_total", "gardener_daemon_last_successful_apply_timestamp_seconds",
		"gardener_daemon_component_ready", "gardener_daemon_cycles_total", "gardener_daemon_plans_total", "gardener_daemon_api_requests_total"} {
		assert.True(t, names[n], "metric %s", n)
	}

	cancel()
	require.NoError(t, <-done)
}
