package apply_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// outage is how long the API server stays down in the middle of the apply: the "about ten
// seconds" of issue 5.
const outage = 10 * time.Second

// bulkConfigMaps is the size of the component whose writes the outage cuts into: enough objects
// that writing them takes longer than it takes to notice the first and stop the API server.
const bulkConfigMaps = 200

// TestAnAPIServerOutageMidApplyIsRiddenOutOrConverges stops the API server for about ten seconds
// while an apply writes one component and waits for the rollout of another, then starts it again.
// The apply must either ride the outage out (writes retried with backoff, readiness watches
// re-established) or fail naming the component and the unreachable server; either way the next
// apply converges: no changes left to plan and exactly the landscape's objects carry its label.
// The cluster is dedicated because the outage would disturb the tests sharing one.
func TestAnAPIServerOutageMidApplyIsRiddenOutOrConverges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane, Workloads: true})
	plane := c.Plane(localcluster.RuntimePlane)
	cfg := plane.RESTConfig()
	const ns = "apply-outage"
	var bulk []string
	for i := range bulkConfigMaps {
		bulk = append(bulk, fmt.Sprintf("bulk-%03d", i))
	}
	// namespace -> config -> web (rolls out slowly) --> after -> api -> done
	//                     -> bulk (many writes) ----/
	dir := landscapetest.Dir(t, landscape(ns,
		configMaps("config", ns, "depends_on = [component.manifests.namespace]", "a", "b"),
		deploymentAfter("web", ns, "component.manifests.config", 15),
		configMaps("bulk", ns, "depends_on = [component.manifests.config]", bulk...),
		configMaps("after", ns, "depends_on = [component.manifests.web, component.manifests.bulk]", "c"),
		deploymentAfter("api", ns, "component.manifests.after", 0),
		configMaps("done", ns, "depends_on = [component.manifests.api]", "d"),
	))
	// Controllers back off while the API server is away; rollouts spanning the outage take a while.
	long := func(o *apply.LandscapeOptions) { o.Apply.Timeout = 3 * time.Minute }

	// The outage runs beside the apply: it stops the API server as soon as the bulk component has
	// begun writing, so the rest of its writes meet a closed port while web waits for its rollout.
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	type window struct {
		from, to time.Duration // since the apply began
		err      error
	}
	began := time.Now()
	outageDone := make(chan window, 1)
	go func() {
		err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil //nolint:nilerr // retried until the timeout
			}
			return slices.ContainsFunc(cms.Items, func(cm corev1.ConfigMap) bool { return strings.HasPrefix(cm.Name, "bulk-") }), nil
		})
		if err != nil {
			outageDone <- window{err: fmt.Errorf("the apply never started writing the bulk component: %w", err)}
			return
		}
		if err := plane.StopAPIServer(); err != nil {
			outageDone <- window{err: err}
			return
		}
		w := window{from: time.Since(began)}
		time.Sleep(outage)
		w.err = plane.StartAPIServer(context.Background())
		w.to = time.Since(began)
		outageDone <- w
	}()

	_, firstErr := applyLandscape(t, cfg, dir, long)
	took := time.Since(began)
	w := <-outageDone
	require.NoError(t, w.err, "the outage")
	t.Logf("API server down from %s to %s into the apply", w.from.Round(100*time.Millisecond), w.to.Round(100*time.Millisecond))
	require.Less(t, w.from, took, "the outage began before the apply ended")
	if firstErr == nil {
		t.Logf("outcome: the apply rode out the outage and completed in %s", took.Round(100*time.Millisecond))
	} else {
		t.Logf("outcome: the apply failed after %s: %v", took.Round(100*time.Millisecond), firstErr)
		// A clear message names the failed component, the object and cluster it was writing, and
		// that the API server refused the connection.
		assert.Regexp(t, `component\.manifests\.\w+ failed: \w+ `+ns+`/[\w-]+ in cluster runtime: .*connection refused`, firstErr.Error())
	}

	// Either way, the next apply converges.
	_, err = applyLandscape(t, cfg, dir, long)
	require.NoError(t, err, "the apply after the outage converges")
	assert.False(t, planOf(t, cfg, dir).HasChanges(), "nothing left to change after the second apply")
	want := []string{"Namespace " + ns, "Deployment " + ns + "/web", "Deployment " + ns + "/api"}
	for _, name := range append([]string{"a", "b", "c", "d"}, bulk...) {
		want = append(want, "ConfigMap "+ns+"/"+name)
	}
	sort.Strings(want)
	assert.Equal(t, want, owned(t, cfg, ns), "exactly the landscape's objects carry its label")
}

// deploymentAfter is a Deployment component that depends on another and whose rollout takes at
// least minReadySeconds, long enough for an outage to cut into its readiness wait.
func deploymentAfter(component, namespace, dependsOn string, minReadySeconds int) string {
	return fmt.Sprintf(`
component "manifests" %[1]q {
  cluster    = cluster.runtime
  namespace  = %[2]q
  depends_on = [%[3]s]
  objects = [{
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = %[1]q }
    spec = {
      replicas        = 2
      minReadySeconds = %[4]d
      selector        = { matchLabels = { app = %[1]q } }
      template = {
        metadata = { labels = { app = %[1]q } }
        spec     = { containers = [{ name = "app", image = "registry.local/app:1" }] }
      }
    }
  }]
}
`, component, namespace, dependsOn, minReadySeconds)
}
