package daemon_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// replica is one `gardener daemon` process.
type replica struct {
	name            string
	cmd             *exec.Cmd
	metrics, probes string
	mu              sync.Mutex
	output          strings.Builder
	exited          chan struct{}
}

func (r *replica) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.output.Write(p)
}

func (r *replica) logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.output.String()
}

// startReplica runs `gardener daemon` (bin) with args and its own metrics and probe addresses,
// with env added to the test's environment and its output kept in the replica. When the test ends
// it is stopped with SIGTERM (killed after 30 s), and its logs are shown if the test failed.
func startReplica(t *testing.T, bin, name string, env []string, args ...string) *replica {
	t.Helper()
	r := &replica{name: name, metrics: freeAddress(t), probes: freeAddress(t), exited: make(chan struct{})}
	args = append(append([]string{"daemon"}, args...), "--metrics-bind-address", r.metrics, "--health-probe-bind-address", r.probes)
	r.cmd = exec.Command(bin, args...)
	r.cmd.Env = append(os.Environ(), env...)
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

// get fetches one of the replica's endpoints; "" when it does not answer.
func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// metricValue returns the value of one sample (name with labels, as exposed) in a /metrics page.
func metricValue(page, sample string) (float64, bool) {
	for _, line := range strings.Split(page, "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// metricSum adds up the samples of metric name on an exposition page whose labels include
// every pair of labels (`phase="Applied"`), whatever other labels they have (the shard label a
// daemon gives every series, empty when unsharded).
func metricSum(page, name string, labels ...string) float64 {
	total := 0.0
lines:
	for _, line := range strings.Split(page, "\n") {
		series, value, ok := strings.Cut(line, " ")
		if !ok || (series != name && !strings.HasPrefix(series, name+"{")) {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(series, l) {
				continue lines
			}
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			total += v
		}
	}
	return total
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// documentedMetrics are the metric names docs/daemon.md lists.
func documentedMetrics(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "daemon.md"))
	require.NoError(t, err)
	seen := map[string]bool{}
	var names []string
	for _, n := range regexp.MustCompile("`(gardener_daemon_[a-z_]+)").FindAllStringSubmatch(string(doc), -1) {
		if !seen[n[1]] {
			seen[n[1]] = true
			names = append(names, n[1])
		}
	}
	require.NotEmpty(t, names)
	return names
}

func replicasLandscape(configMaps ...string) string {
	return namedLandscape("daemon-replicas", configMaps...)
}

// Two replicas of the real binary: only the leader acts, its metrics endpoint serves every
// documented metric, drift is repaired with an Event in the cluster and a drift metric, and
// killing the leader (SIGKILL, no chance to release its Lease) hands over to the other replica,
// which then applies the next change of the landscape.
func TestTwoReplicasOfTheBinary(t *testing.T) {
	c := localcluster.Shared(t)
	admin := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(admin)
	require.NoError(t, err)
	// /metrics answers whom the API server authenticates and authorizes: here the admin.
	metrics := func(r *replica) string {
		_, page := scrape("https://"+r.metrics+"/metrics", admin.BearerToken)
		return page
	}
	ctx := context.Background()
	for _, ns := range []string{"daemon-replicas-state", "daemon-replicas-status"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	bin := buildDaemon(t)
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": replicasLandscape("a")})

	start := func(name string) *replica {
		return startReplica(t, bin, name, []string{"KUBECONFIG=" + c.Kubeconfig()}, "--landscape", dir, "--policy", "auto",
			"--kubeconfig", c.Kubeconfig(), "--context", "runtime",
			"--status-namespace", "daemon-replicas-status", "--leader-election-id", "daemon-replicas",
			"--resync", "1h", "--poll", "200ms", "--timeout", "1m")
	}
	replicas := []*replica{start("one"), start("two")}
	for _, r := range replicas {
		require.Eventually(t, func() bool {
			healthz, _ := get("http://" + r.probes + "/healthz")
			readyz, _ := get("http://" + r.probes + "/readyz")
			return healthz == http.StatusOK && readyz == http.StatusOK
		}, time.Minute, 100*time.Millisecond, "%s answers its probes", r.name)
	}

	cycles := func(r *replica) float64 { return metricSum(metrics(r), "gardener_daemon_cycles_total") }
	configMap := func(name string) (*corev1.ConfigMap, error) {
		return cs.CoreV1().ConfigMaps("daemon-replicas").Get(ctx, name, metav1.GetOptions{})
	}
	require.Eventually(t, func() bool { _, err := configMap("a"); return err == nil }, 2*time.Minute, 200*time.Millisecond, "the leader applies the landscape")

	// Exactly one replica runs cycles: the one controller-runtime reports as leader.
	var leader, follower *replica
	require.Eventually(t, func() bool {
		for i, r := range replicas {
			page := metrics(r)
			if v, _ := metricValue(page, `leader_election_master_status{name="daemon-replicas"}`); v == 1 {
				leader, follower = r, replicas[1-i]
				return true
			}
		}
		return false
	}, 30*time.Second, 200*time.Millisecond)
	// The applied objects exist a moment before the leader counts its cycle.
	require.Eventually(t, func() bool { return cycles(leader) > 0 }, 10*time.Second, 100*time.Millisecond, "the leader runs cycles")
	assert.Zero(t, cycles(follower), "the follower does nothing")

	// The leader's endpoint serves every metric docs/daemon.md documents.
	page := metrics(leader)
	for _, name := range documentedMetrics(t) {
		assert.Contains(t, page, "\n"+name, "metric %s is served", name)
	}

	// Drift is repaired, counted and recorded as an Event on the status ConfigMap.
	_, err = cs.CoreV1().ConfigMaps("daemon-replicas").Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"owner":"someone"}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cm, err := configMap("a")
		return err == nil && cm.Data["owner"] == "daemon"
	}, 10*time.Second, 100*time.Millisecond, "the drift is repaired")
	require.Eventually(t, func() bool {
		return metricSum(metrics(leader), "gardener_daemon_drift_repaired_total") == 1
	}, 10*time.Second, 100*time.Millisecond, "the drift metric counts the repaired object")
	require.Eventually(t, func() bool {
		events, err := cs.EventsV1().Events("daemon-replicas-status").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		for _, e := range events.Items {
			if e.Regarding.Kind == "ConfigMap" && e.Regarding.Name == "gardener-daemon-status" && e.Reason == "Applied" &&
				strings.Contains(e.Note, "repairing 1 drifted object(s)") {
				return true
			}
		}
		return false
	}, 10*time.Second, 200*time.Millisecond, "an Event records the repair")

	// Killing the leader hands over once its Lease expires; the new leader applies the next
	// change.
	require.NoError(t, leader.cmd.Process.Kill())
	<-leader.exited
	killed := time.Now()
	landscapetest.Write(t, dir, map[string]string{"main.hcl": replicasLandscape("a", "b")})
	require.Eventually(t, func() bool { _, err := configMap("b"); return err == nil }, 90*time.Second, 200*time.Millisecond,
		"the other replica takes over and applies the change")
	t.Logf("handed over and applied %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	require.Eventually(t, func() bool { return cycles(follower) > 0 }, 10*time.Second, 100*time.Millisecond, "the new leader counts its cycles")
}
