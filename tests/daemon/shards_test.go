package daemon_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// The sharded replicas of this test run as processes of the test binary itself
// (TestShardedReplicaProcess), so that one can be killed with SIGKILL; they run daemon.Sharder
// as `gardener daemon --shard-by-seed` does, with one difference: a seed block needs a whole
// garden (gardener-apiserver, its extensions), which this test does not install, so the three
// seeds stand in as components named seed_<name>, which seedsByName assigns to shard
// seed.<name>, the shard BySeed gives seed block <name>.
const (
	shardReplicaEnv = "GARDENER_TEST_SHARD_REPLICA"
	shardDirEnv     = "GARDENER_TEST_SHARD_DIR"
	shardLandscape  = "daemon-shards"
	shardLeaseBase  = "daemon-shards"
)

var shardSeeds = []string{"seed.a", "seed.b", "seed.c"}

// seedsByName splits the test landscape: component.manifests.seed_<x> and
// component.manifests.seed_<x>_<more> are shard seed.<x>.
func seedsByName(ev *config.Evaluated) *shard.Assignment {
	return shard.By(ev, func(inst *config.Instance) string {
		if name, ok := strings.CutPrefix(string(inst.Addr), "component.manifests.seed_"); ok {
			name, _, _ = strings.Cut(name, "_")
			return "seed." + name
		}
		return shard.Garden
	})
}

// seedsAndMembersByName splits as seedsByName does, and places the fleet_member instance
// component.fleet_member.shoot["<x>"] (a stand-in shoot, fleetOptions) in shard seed.<x>, as
// BySeed places a shoot in its seed's shard.
func seedsAndMembersByName(ev *config.Evaluated) *shard.Assignment {
	return shard.By(ev, func(inst *config.Instance) string {
		addr := string(inst.Addr)
		if key, ok := strings.CutPrefix(addr, `component.fleet_member.shoot["`); ok {
			return "seed." + strings.TrimSuffix(key, `"]`)
		}
		if name, ok := strings.CutPrefix(addr, "component.manifests.seed_"); ok {
			name, _, _ = strings.Cut(name, "_")
			return "seed." + name
		}
		return shard.Garden
	})
}

// shardsLandscape has a namespace (the garden shard's) and, per seed, a component with a
// ConfigMap in it named after the seed, and for the seeds extra names a second component
// seed_<x>_extra with a ConfigMap of that name.
func shardsLandscape(extra map[string]string) string {
	return namedShardsLandscape(shardLandscape, extra)
}

// namedShardsLandscape is shardsLandscape called name, with its state in <name>-state and its
// objects in namespace name.
func namedShardsLandscape(shardLandscape string, extra map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `landscape %[1]q {
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
`, shardLandscape)
	for _, seed := range shardSeeds {
		name := strings.TrimPrefix(seed, "seed.")
		fmt.Fprintf(&b, `
component "manifests" "seed_%[1]s" {
  cluster    = cluster.runtime
  namespace  = %[2]q
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "seed-%[1]s" }, data = { owner = "daemon" } }]
}
`, name, shardLandscape)
		if e := extra[seed]; e != "" {
			fmt.Fprintf(&b, `
component "manifests" "seed_%[1]s_extra" {
  cluster    = cluster.runtime
  namespace  = %[2]q
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = %[3]q } }]
}
`, name, shardLandscape, e)
		}
	}
	return b.String()
}

// TestShardedReplicaProcess is one sharded replica, started by TestTwoShardedReplicas as a
// process of the test binary; run directly it does nothing.
func TestShardedReplicaProcess(t *testing.T) {
	identity := os.Getenv(shardReplicaEnv)
	if identity == "" {
		t.Skip("a replica process of TestTwoShardedReplicasSplitThreeSeeds")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := cluster.LoadRESTConfig(cluster.Access{Kubeconfig: os.Getenv("KUBECONFIG"), Context: "runtime"})
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	clusterOpts := cluster.Options{NoDiskCache: true}
	log := logr.FromSlogHandler(slog.NewJSONHandler(os.Stderr, nil)).WithValues("replica", identity)
	s := daemon.NewSharder(daemon.ShardOptions{
		Daemon: daemon.Options{
			Dir: os.Getenv(shardDirEnv), WorkDir: t.TempDir(), Policy: daemon.PolicyAuto,
			Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: identity,
			Planner: func(dir string) planner.Options {
				return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
			},
			Cluster: clusterOpts,
			Apply:   apply.Options{Timeout: time.Minute},
			Status:  daemon.StatusStore{Client: cs, Namespace: shardLandscape + "-status", Name: "gardener-daemon-status"},
			Metrics: daemon.NewMetrics(prometheus.NewRegistry()),
			Log:     log, WatchDrift: true, Assign: seedsByName,
		},
		Client: cs, Namespace: shardLandscape + "-status", LeaseName: shardLeaseBase, Identity: identity,
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond,
	})
	require.NoError(t, s.Start(ctx))
}

// startShardReplica runs TestShardedReplicaProcess as replica name on the landscape in dir.
func startShardReplica(t *testing.T, kubeconfig, dir, name string) *replica {
	t.Helper()
	r := &replica{name: name, exited: make(chan struct{})}
	r.cmd = exec.Command(os.Args[0], "-test.run=^TestShardedReplicaProcess$", "-test.count=1")
	r.cmd.Env = append(os.Environ(), shardReplicaEnv+"="+name, shardDirEnv+"="+dir, "KUBECONFIG="+kubeconfig)
	r.cmd.Stdout, r.cmd.Stderr = r, r
	require.NoError(t, r.cmd.Start())
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
		case <-time.After(30 * time.Second):
			_ = r.cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("logs of %s:\n%s", r.name, r.logs())
		}
	})
	return r
}

// Two replicas split the garden shard and three seed shards between them, each shard with its
// own Lease, state and state lock; killing one (SIGKILL: its Leases are not released) hands its
// seeds to the other once the Leases expire, and the other applies the next change in one of
// them.
func TestTwoShardedReplicasSplitThreeSeeds(t *testing.T) {
	c := localcluster.Shared(t)
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx := context.Background()
	for _, ns := range []string{shardLandscape + "-state", shardLandscape + "-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": shardsLandscape(nil)})
	replicas := map[string]*replica{}
	for _, name := range []string{"one", "two"} {
		replicas[name] = startShardReplica(t, c.Kubeconfig(), dir, name)
	}
	configMap := func(name string) bool {
		_, err := cs.CoreV1().ConfigMaps(shardLandscape).Get(ctx, name, metav1.GetOptions{})
		return err == nil
	}
	// leaders returns the holder of every shard's election Lease.
	leaders := func() map[string]string {
		out := map[string]string{}
		for _, s := range append([]string{shard.Garden}, shardSeeds...) {
			l, err := cs.CoordinationV1().Leases(shardLandscape+"-status").Get(ctx, daemon.ShardLeaseName(shardLeaseBase, s), metav1.GetOptions{})
			if err == nil {
				out[s] = ptr.Deref(l.Spec.HolderIdentity, "")
			}
		}
		return out
	}
	seedsOf := func(held map[string]string, replica string) []string {
		var out []string
		for _, s := range shardSeeds {
			if held[s] == replica {
				out = append(out, s)
			}
		}
		return out
	}

	require.Eventually(t, func() bool {
		return configMap("seed-a") && configMap("seed-b") && configMap("seed-c")
	}, 2*time.Minute, 200*time.Millisecond, "the shards' leaders apply the landscape")
	// The replicas split the shards: two each, each replica leading at least one seed.
	var held map[string]string
	require.Eventually(t, func() bool {
		held = leaders()
		count := map[string]int{}
		for _, h := range held {
			count[h]++
		}
		return len(held) == 4 && count["one"] == 2 && count["two"] == 2
	}, time.Minute, 200*time.Millisecond, "the replicas split the four shards; last: %v", held)
	t.Logf("leaders: %v", held)
	require.NotEmpty(t, seedsOf(held, "one"))
	require.NotEmpty(t, seedsOf(held, "two"))

	// Each shard has its own state: a head Secret per shard, in the landscape's one lineage.
	lineages := map[string]bool{}
	for _, s := range append([]string{shard.Garden}, shardSeeds...) {
		head, err := cs.CoreV1().Secrets(shardLandscape+"-state").Get(ctx, state.ShardHeadName(shardLandscape, s), metav1.GetOptions{})
		require.NoError(t, err, "shard %q has a state", s)
		lineage, _, ok := state.HeadVersion(head.Annotations)
		require.True(t, ok)
		lineages[lineage] = true
	}
	assert.Len(t, lineages, 1, "the shards share the landscape's lineage")

	// Every shard's daemon has finished its cycles (a replica killed in the middle of one leaves
	// its shard's state lock behind, which expires only after 60 seconds; docs/daemon.md).
	phase := func(s string) string {
		status, err := cs.CoreV1().ConfigMaps(shardLandscape+"-status").Get(ctx, daemon.StatusName("gardener-daemon-status", s), metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return status.Data["phase"]
	}
	settled := func(s string) bool { return phase(s) == daemon.PhaseApplied || phase(s) == daemon.PhaseUpToDate }
	require.Eventually(t, func() bool {
		return settled(shard.Garden) && settled("seed.a") && settled("seed.b") && settled("seed.c")
	}, time.Minute, 200*time.Millisecond, "every shard's cycle ends")

	// Kill replica one: its seeds go to two.
	killed := seedsOf(held, "one")
	require.NoError(t, replicas["one"].cmd.Process.Kill())
	<-replicas["one"].exited
	start := time.Now()
	target := killed[0]
	landscapetest.Write(t, dir, map[string]string{"main.hcl": shardsLandscape(map[string]string{target: "after-kill"})})
	require.Eventually(t, func() bool { return configMap("after-kill") }, 90*time.Second, 200*time.Millisecond,
		"replica two takes over shard %s and applies the change", target)
	t.Logf("shard %s handed over and the change applied %s after the kill", target, time.Since(start).Round(100*time.Millisecond))
	require.Eventually(t, func() bool {
		held = leaders()
		return len(seedsOf(held, "two")) == len(shardSeeds) && held[shard.Garden] == "two"
	}, 30*time.Second, 200*time.Millisecond, "replica two leads every shard; last: %v", held)
	assert.True(t, slices.Contains(seedsOf(held, "two"), target))
	// The shard's status says what its new leader did.
	require.Eventually(t, func() bool { return settled(target) }, 10*time.Second, 100*time.Millisecond, "the status of shard %s", target)

	// A component removed from the shard is the shard's to delete: its state records it.
	landscapetest.Write(t, dir, map[string]string{"main.hcl": shardsLandscape(nil)})
	require.Eventually(t, func() bool { return !configMap("after-kill") }, 30*time.Second, 200*time.Millisecond,
		"shard %s deletes the component removed from it", target)
	head, err := cs.CoreV1().Secrets(shardLandscape+"-state").Get(ctx, state.ShardHeadName(shardLandscape, target), metav1.GetOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := state.NewKubernetesShards(cs, shardLandscape+"-state", shardLandscape, state.KubernetesOptions{}).Shard(target).Read(ctx)
		require.NoError(t, err)
		_, recorded := st.Components["component.manifests.seed_"+strings.TrimPrefix(target, "seed.")+"_extra"]
		return !recorded
	}, 10*time.Second, 100*time.Millisecond, "shard %s forgets the removed component (head was %s)", target, head.ResourceVersion)
}

// `gardener daemon --shard-by-seed` elects the garden shard's leader on --leader-election-id
// (a landscape without seed blocks is the garden shard alone) instead of the manager's election,
// and applies the landscape as that shard's leader.
func TestShardBySeedFlag(t *testing.T) {
	c := localcluster.Shared(t)
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx := context.Background()
	for _, ns := range []string{"daemon-shard-flag-state", "daemon-shard-flag-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": namedLandscape("daemon-shard-flag", "a")})
	r := startReplica(t, buildDaemon(t), "sharded", []string{"KUBECONFIG=" + c.Kubeconfig()}, "--landscape", dir, "--policy", "auto",
		"--kubeconfig", c.Kubeconfig(), "--context", "runtime", "--shard-by-seed",
		"--status-namespace", "daemon-shard-flag-status", "--leader-election-id", "daemon-shard-flag",
		"--resync", "1h", "--poll", "200ms", "--timeout", "1m")
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().ConfigMaps("daemon-shard-flag").Get(ctx, "a", metav1.GetOptions{})
		return err == nil
	}, 2*time.Minute, 200*time.Millisecond, "the garden shard's leader applies the landscape")
	lease, err := cs.CoordinationV1().Leases("daemon-shard-flag-status").Get(ctx, daemon.ShardLeaseName("daemon-shard-flag", shard.Garden), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, ptr.Deref(lease.Spec.HolderIdentity, ""), fmt.Sprintf("_%d_", r.cmd.Process.Pid), "the replica leads the garden shard")
	require.Eventually(t, func() bool {
		status, err := cs.CoreV1().ConfigMaps("daemon-shard-flag-status").Get(ctx, "gardener-daemon-status", metav1.GetOptions{})
		return err == nil && (status.Data["phase"] == daemon.PhaseApplied || status.Data["phase"] == daemon.PhaseUpToDate)
	}, 30*time.Second, 200*time.Millisecond, "the garden shard's status")
	assert.Contains(t, r.logs(), `"msg":"leading shard"`)
}

// A sharded replica whose shards have nothing to do makes no request: when an owned object of a
// seed shard led by the other replica changes, the daemon of every shard that watches its kind
// sees the event (each watches the landscape's objects of the kinds its plans observe), and
// those of this replica plan from their caches, each in a cycle of its own (counted per shard),
// without a LIST, a GET, a lock or a status write. A change of a shoot's object runs a cycle of
// that shoot in its shard, and none in the others.
func TestIdleShardsMakeNoRequests(t *testing.T) {
	const name = "daemon-idle-shards"
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	cs, err := kubernetes.NewForConfig(c.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{name + "-state", name + "-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	// Beside the stand-in seeds, a stand-in shoot on each (fleetOptions).
	members := fmt.Sprintf(`
component "fleet_member" "shoot" {
  for_each   = { a = "a", b = "b", c = "c" }
  cluster    = cluster.runtime
  namespace  = %[1]q
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "member-${each.key}" }, data = { owner = "daemon" } }]
}
`, name)
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": namedShardsLandscape(name, nil) + members})
	type replica struct {
		reg     *prometheus.Registry
		sharder *daemon.Sharder
	}
	replicas := map[string]*replica{}
	var running sync.WaitGroup
	for _, identity := range []string{"one", "two"} {
		reg := prometheus.NewRegistry()
		metrics := daemon.NewMetrics(reg)
		clusterOpts := cluster.Options{NoDiskCache: true, WrapTransport: metrics.CountRequests}
		s := daemon.NewSharder(daemon.ShardOptions{
			Daemon: daemon.Options{
				Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyAuto,
				Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: identity,
				Planner: func(dir string) planner.Options {
					return fleetOptions(t, dir, planner.LiveConnector(clusterOpts))
				},
				Cluster: clusterOpts,
				Apply:   apply.Options{Timeout: time.Minute},
				Status:  daemon.StatusStore{Client: cs, Namespace: name + "-status", Name: "gardener-daemon-status"},
				Metrics: metrics,
				Log:     testr.New(t).WithValues("replica", identity), WatchDrift: true, Assign: seedsAndMembersByName,
			},
			Client: cs, Namespace: name + "-status", LeaseName: name, Identity: identity,
			LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond,
		})
		replicas[identity] = &replica{reg: reg, sharder: s}
		running.Add(1)
		go func() {
			defer running.Done()
			_ = s.Start(ctx)
		}()
	}
	defer running.Wait()
	defer cancel()
	count := func(r *replica, metric string, labels map[string]string) float64 {
		return counterSum(t, r.reg, metric, labels)
	}
	requests := func(r *replica) float64 {
		return count(r, "gardener_daemon_api_requests_total", nil) - count(r, "gardener_daemon_api_requests_total", map[string]string{"verb": "watch"})
	}
	phase := func(s string) string {
		status, err := cs.CoreV1().ConfigMaps(name+"-status").Get(ctx, daemon.StatusName("gardener-daemon-status", s), metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return status.Data["phase"]
	}
	settled := func() bool {
		for _, s := range append([]string{shard.Garden}, shardSeeds...) {
			if p := phase(s); p != daemon.PhaseApplied && p != daemon.PhaseUpToDate {
				return false
			}
		}
		return true
	}
	var leading map[string][]string
	require.Eventually(t, func() bool {
		leading = map[string][]string{}
		for identity, r := range replicas {
			leading[identity] = r.sharder.Leading()
		}
		return len(leading["one"]) == 2 && len(leading["two"]) == 2 && settled()
	}, 2*time.Minute, 200*time.Millisecond, "the replicas split the four shards and apply them; last: %v", leading)
	t.Logf("leading: %v", leading)

	// The seed shard to change, and the replica that does not lead it.
	busy, idle := "one", "two"
	if !slices.ContainsFunc(leading["one"], func(s string) bool { return s != shard.Garden }) {
		busy, idle = "two", "one"
	}
	target := ""
	for _, s := range leading[busy] {
		if s != shard.Garden {
			target = s
		}
	}
	configMap := "seed-" + strings.TrimPrefix(target, "seed.")
	statusVersions := func() map[string]string {
		out := map[string]string{}
		for _, s := range leading[idle] {
			status, err := cs.CoreV1().ConfigMaps(name+"-status").Get(ctx, daemon.StatusName("gardener-daemon-status", s), metav1.GetOptions{})
			require.NoError(t, err)
			out[s] = status.ResourceVersion
		}
		return out
	}
	// The idle replica's seed shards watch ConfigMaps, as the busy one's: they see the change.
	// (The garden shard's instances are the namespace alone, whose plans observe no ConfigMap.)
	var idleSeeds []string
	for _, s := range leading[idle] {
		if s != shard.Garden {
			idleSeeds = append(idleSeeds, s)
		}
	}
	require.NotEmpty(t, idleSeeds)
	// Each round changes the busy shard's ConfigMap, waits until it is repaired and every seed
	// shard of the idle replica ran a cycle, and counts what those cycles cost. The first rounds
	// may find a cache behind (a watch not synced yet, a state head the informer has not seen
	// since the shard's own last write), which costs a plan from the API servers, or write the
	// status once (its content changed from Applied); the test waits for a round without either.
	cached := func(s string) float64 {
		return count(replicas[idle], "gardener_daemon_plans_total", map[string]string{"shard": s, "source": "cache"})
	}
	shardCycles := func(s string) float64 {
		return count(replicas[idle], "gardener_daemon_cycles_total", map[string]string{"shard": s})
	}
	poll := func(cond func() bool) bool {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if cond() {
				return true
			}
		}
		return false
	}
	var last string
	round := 0
	quiet := assert.Eventually(t, func() bool {
		round++
		before, versions := requests(replicas[idle]), statusVersions()
		plans, ran := map[string]float64{}, map[string]float64{}
		for _, s := range idleSeeds {
			plans[s], ran[s] = cached(s), shardCycles(s)
		}
		// A value of its own each round: a round whose change the busy shard missed (a leader
		// that took the shard over just before, whose watches listed after its first plan read)
		// is followed by a change the watches see.
		patch := fmt.Sprintf(`{"data":{"owner":"someone-%d"}}`, round)
		_, err := cs.CoreV1().ConfigMaps(name).Patch(ctx, configMap, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-edit"})
		require.NoError(t, err)
		if !poll(func() bool {
			cm, err := cs.CoreV1().ConfigMaps(name).Get(ctx, configMap, metav1.GetOptions{})
			return err == nil && cm.Data["owner"] == "daemon"
		}) {
			last = "the busy shard did not repair its ConfigMap"
			return false
		}
		if !poll(func() bool {
			for _, s := range idleSeeds {
				if shardCycles(s) <= ran[s] {
					return false
				}
			}
			return true
		}) {
			last = "a seed shard of the idle replica ran no cycle"
			return false
		}
		time.Sleep(500 * time.Millisecond) // a status write would follow its cycle's count
		made := requests(replicas[idle]) - before
		fromCaches := true
		for _, s := range idleSeeds {
			fromCaches = fromCaches && cached(s) > plans[s]
		}
		last = fmt.Sprintf("requests %v, every cycle from the caches %v, status unchanged %v", made, fromCaches, maps.Equal(versions, statusVersions()))
		return made == 0 && fromCaches && maps.Equal(versions, statusVersions())
	}, 2*time.Minute, 100*time.Millisecond, "the idle replica's cycles make no request and write no status")
	require.True(t, quiet, "last round: %s", last)
	assert.Greater(t, requests(replicas[busy]), 0.0, "the busy replica repairs its shard")

	// A stand-in shoot's object changes: its shard runs a cycle of that shoot alone, and the
	// shards of the idle replica, none of whose instances it is, run no cycle at all.
	member := "member-" + strings.TrimPrefix(target, "seed.")
	targeted := count(replicas[busy], "gardener_daemon_cycles_total", map[string]string{"shard": target, "scope": daemon.ScopeTargeted})
	idleCycles, idleRequests := count(replicas[idle], "gardener_daemon_cycles_total", nil), requests(replicas[idle])
	_, err = cs.CoreV1().ConfigMaps(name).Patch(ctx, member, types.MergePatchType, []byte(`{"data":{"owner":"someone"}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cm, err := cs.CoreV1().ConfigMaps(name).Get(ctx, member, metav1.GetOptions{})
		return err == nil && cm.Data["owner"] == "daemon"
	}, 30*time.Second, 100*time.Millisecond, "shard %s repairs %s", target, member)
	require.Eventually(t, func() bool {
		return count(replicas[busy], "gardener_daemon_cycles_total", map[string]string{"shard": target, "scope": daemon.ScopeTargeted}) > targeted
	}, 10*time.Second, 50*time.Millisecond, "the repair was a targeted cycle of shard %s", target)
	time.Sleep(time.Second) // the idle replica's watches saw the change too
	assert.Equal(t, idleCycles, count(replicas[idle], "gardener_daemon_cycles_total", nil), "no cycle in the shards the shoot is not of")
	assert.Equal(t, idleRequests, requests(replicas[idle]))
}
