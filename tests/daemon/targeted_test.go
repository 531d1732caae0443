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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// fleetOptions are the planner options of landscapetest with one more component type,
// fleet_member: the manifests type, but independent (schema.Schema.Independent) as shoots are.
// A shoot block needs a whole garden (gardener-apiserver, a seed, its extensions), which this
// test does not install; what makes a shoot's cycle targeted is its type's independence, which
// the stand-in has, and the inventory marks on its objects, which the engine stamps on every
// object alike.
func fleetOptions(t *testing.T, dir string, connect planner.Connector) planner.Options {
	o := landscapetest.Options(dir, connect)
	member := *o.Schemas.Lookup(schema.KindComponent, "manifests")
	member.Type, member.Independent = "fleet_member", true
	reg, err := schema.NewRegistry(append(o.Schemas.All(), &member)...)
	require.NoError(t, err)
	o.Schemas = reg
	o.Renderers["fleet_member"] = o.Renderers["manifests"]
	return o
}

const fleetLandscape = `landscape "daemon-fleet" {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "daemon-fleet-state"
  }
}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "daemon-fleet" } }]
}

component "manifests" "settings" {
  cluster    = cluster.runtime
  namespace  = "daemon-fleet"
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "garden-settings" }, data = { owner = "daemon" } }]
}

component "fleet_member" "shoot" {
  for_each   = { a = "a", b = "b", c = "c", d = "d" }
  cluster    = cluster.runtime
  namespace  = "daemon-fleet"
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "member-${each.key}" }, data = { owner = "daemon" } }]
}
`

// A change of one shoot's object is followed by a cycle of that shoot alone (the scope of
// gardener plan --target): it repairs the drift, and its plan names no other shoot and no
// garden-level component. A change of a garden-level object still runs a full cycle; changes of
// two shoots while a cycle is pending plan both, still targeted; and a targeted cycle that finds
// nothing to do makes no request, as a full one.
func TestChangeOfOneShootRunsATargetedCycle(t *testing.T) {
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"daemon-fleet-state", "daemon-fleet-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": fleetLandscape})
	status := daemon.StatusStore{Client: cs, Namespace: "daemon-fleet-status", Name: "gardener-daemon-status"}
	reg := prometheus.NewRegistry()
	metrics := daemon.NewMetrics(reg)
	clusterOpts := cluster.Options{NoDiskCache: true, WrapTransport: metrics.CountRequests}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
		Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: "daemon-fleet-test",
		Planner: func(dir string) planner.Options {
			return fleetOptions(t, dir, planner.LiveConnector(clusterOpts))
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: time.Minute},
		Status:  status, Metrics: metrics, Log: testr.New(t), WatchDrift: true,
	})
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx) }()
	count := func(name string, labels map[string]string) float64 { return counterSum(t, reg, name, labels) }
	cycles := func(phase, scope string) float64 {
		return count("gardener_daemon_cycles_total", map[string]string{"phase": phase, "scope": scope})
	}
	requests := func() float64 {
		return count("gardener_daemon_api_requests_total", nil) - count("gardener_daemon_api_requests_total", map[string]string{"verb": "watch"})
	}
	configMap := func(name string) *corev1.ConfigMap {
		cm, err := cs.CoreV1().ConfigMaps("daemon-fleet").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return cm
	}
	drift := func(name string) {
		t.Helper()
		_, err := cs.CoreV1().ConfigMaps("daemon-fleet").Patch(ctx, name, types.JSONPatchType, []byte(`[{"op":"remove","path":"/data/owner"}]`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
		require.NoError(t, err)
	}
	repaired := func(names ...string) func() bool {
		return func() bool {
			for _, n := range names {
				if cm := configMap(n); cm == nil || cm.Data["owner"] != "daemon" {
					return false
				}
			}
			return true
		}
	}

	// The first cycle applies (finds it applied, when the test runs again on the same plane).
	require.Eventually(t, func() bool {
		return cycles(daemon.PhaseApplied, daemon.ScopeFull)+cycles(daemon.PhaseUpToDate, daemon.ScopeFull) > 0
	}, 90*time.Second, 50*time.Millisecond, "the first cycle applies: %+v", d.Last())
	require.True(t, repaired("garden-settings", "member-a", "member-b", "member-c", "member-d")())
	// The watches sync: a cycle then plans from their caches.
	require.Eventually(t, func() bool {
		before := count("gardener_daemon_plans_total", map[string]string{"source": "cache"})
		d.Trigger()
		time.Sleep(100 * time.Millisecond)
		return count("gardener_daemon_plans_total", map[string]string{"source": "cache"}) > before
	}, 30*time.Second, 100*time.Millisecond, "a cycle plans from the caches once the watches have synced")
	// No trigger of that loop is left pending: no cycle runs for half a second.
	total := func() float64 { return count("gardener_daemon_cycles_total", nil) }
	require.Eventually(t, func() bool {
		before := total()
		time.Sleep(500 * time.Millisecond)
		return total() == before
	}, 30*time.Second, 10*time.Millisecond, "the daemon settles")

	// One shoot's object changed out of band: its cycle plans that shoot alone and repairs it.
	fullBefore, targetedBefore := cycles(daemon.PhaseApplied, daemon.ScopeFull), cycles(daemon.PhaseApplied, daemon.ScopeTargeted)
	drift("member-b")
	require.Eventually(t, repaired("member-b"), 10*time.Second, 100*time.Millisecond, "the drift is repaired")
	require.Eventually(t, func() bool { return cycles(daemon.PhaseApplied, daemon.ScopeTargeted) > targetedBefore }, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, fullBefore, cycles(daemon.PhaseApplied, daemon.ScopeFull), "no full cycle")
	s := d.Last()
	member := `component.fleet_member.shoot["b"]`
	assert.Equal(t, []string{member}, s.Scope)
	assert.Equal(t, []string{member + " ConfigMap daemon-fleet/member-b (runtime)"}, s.Drifted)
	assert.Contains(t, s.PlanJSON, `shoot[\"b\"]`)
	for _, other := range []string{`shoot[\"a\"]`, `shoot[\"c\"]`, `shoot[\"d\"]`, "component.manifests.settings", "garden-settings"} {
		assert.NotContains(t, s.PlanJSON, other, "the targeted plan leaves the other shoots and the garden-level components out")
	}
	require.Eventually(t, func() bool {
		data, _, err := status.Read(ctx)
		return err == nil && data["scope"] == member && data["phase"] == daemon.PhaseApplied
	}, 10*time.Second, 50*time.Millisecond, "the status names the cycle's scope")

	// A targeted cycle that finds nothing to do plans from the caches and makes no request.
	before, cached := requests(), count("gardener_daemon_plans_total", map[string]string{"source": "cache"})
	upToDate := cycles(daemon.PhaseUpToDate, daemon.ScopeTargeted)
	d.TriggerInstance(member)
	require.Eventually(t, func() bool { return cycles(daemon.PhaseUpToDate, daemon.ScopeTargeted) > upToDate }, 10*time.Second, 20*time.Millisecond)
	assert.Greater(t, count("gardener_daemon_plans_total", map[string]string{"source": "cache"}), cached)
	assert.Equal(t, before, requests(), "a targeted cycle with nothing to do makes no request")

	// Two shoots changed at once: both are repaired by targeted cycles (merged when the second
	// arrives while the first is pending), and no full cycle runs.
	fullBefore = cycles(daemon.PhaseApplied, daemon.ScopeFull)
	drift("member-a")
	drift("member-c")
	require.Eventually(t, repaired("member-a", "member-c"), 10*time.Second, 100*time.Millisecond, "both drifts are repaired")
	require.Eventually(t, func() bool {
		s := d.Last()
		return s.Phase == daemon.PhaseApplied && len(s.Scope) > 0
	}, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, fullBefore, cycles(daemon.PhaseApplied, daemon.ScopeFull), "no full cycle")

	// A garden-level object changed: the cycle is a full one.
	drift("garden-settings")
	require.Eventually(t, repaired("garden-settings"), 10*time.Second, 100*time.Millisecond, "the drift is repaired")
	require.Eventually(t, func() bool { return cycles(daemon.PhaseApplied, daemon.ScopeFull) > fullBefore }, 10*time.Second, 50*time.Millisecond)
	s = d.Last()
	assert.Empty(t, s.Scope)
	assert.Equal(t, []string{"component.manifests.settings ConfigMap daemon-fleet/garden-settings (runtime)"}, s.Drifted)
	assert.Contains(t, s.PlanJSON, `shoot[\"d\"]`, "a full plan covers every shoot")

	cancel()
	require.NoError(t, <-done)
}

// counterSum is the sum of a counter's samples in reg whose labels include labels.
func counterSum(t *testing.T, reg prometheus.Gatherer, metric string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	total := 0.0
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
	samples:
		for _, m := range f.GetMetric() {
			for k, v := range labels {
				found := false
				for _, l := range m.GetLabel() {
					found = found || (l.GetName() == k && l.GetValue() == v)
				}
				if !found {
					continue samples
				}
			}
			total += m.GetCounter().GetValue()
		}
	}
	return total
}
