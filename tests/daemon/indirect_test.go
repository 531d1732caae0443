package daemon_test

import (
	"context"
	"fmt"
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

// indirectLandscape packs ConfigMaps into a ManagedResource, which gardener-resource-manager
// applies: dropping one from the landscape makes the resource manager delete it.
func indirectLandscape(configMaps ...string) string {
	var objs []string
	for _, n := range configMaps {
		objs = append(objs, fmt.Sprintf(`{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = %q, namespace = "kube-system" }, data = { k = "v" } }`, n))
	}
	return fmt.Sprintf(`landscape "daemon-indirect" {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "daemon-indirect"
  }
}

cluster "runtime" {
  context = "runtime"
}

component "managed_resource" "settings" {
  cluster   = cluster.runtime
  namespace = "daemon-indirect"
  class     = "seed"
  objects   = [%s]
}
`, strings.Join(objs, ", "))
}

// approve-destructive counts what another controller deletes because of a change: a plan that
// only updates a ManagedResource (its old contents Secret, superseded, goes with it) but drops an
// object from it waits for approval, and the status says which object the resource manager will
// delete.
func TestDaemonWaitsForIndirectDeletions(t *testing.T) {
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	crd, err := localcluster.SeedCRD("managedresources.resources.gardener.cloud")
	require.NoError(t, err)
	require.NoError(t, localcluster.ApplyCRDs(ctx, cfg, [][]byte{crd}))
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "daemon-indirect"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": indirectLandscape("a", "b")})
	status := daemon.StatusStore{Client: cs, Namespace: "daemon-indirect", Name: "gardener-daemon-status"}
	clusterOpts := cluster.Options{NoDiskCache: true}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyApproveDestructive,
		Resync: time.Hour, Poll: 200 * time.Millisecond, RetryLock: time.Second, Holder: "daemon-indirect-test",
		Planner: func(dir string) planner.Options {
			return landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: time.Minute},
		Status:  status, Events: &landscapetest.Events{}, Metrics: daemon.NewMetrics(prometheus.NewRegistry()), Log: testr.New(t), WatchDrift: true,
	})
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx) }()
	waitPhase := func(phase string) daemon.Status {
		t.Helper()
		require.Eventually(t, func() bool { return d.Last().Phase == phase }, 90*time.Second, 50*time.Millisecond, "phase %s; last: %+v", phase, d.Last())
		return d.Last()
	}

	waitPhase(daemon.PhaseApplied)
	landscapetest.Write(t, dir, map[string]string{"main.hcl": indirectLandscape("a")})
	s := waitPhase(daemon.PhaseWaitingForApproval)
	assert.Contains(t, s.PlanSummary, "0 to replace, 1 to destroy", "the plan itself deletes only the superseded contents Secret")
	assert.Equal(t, "the plan makes other controllers delete what it no longer renders (gardener-resource-manager deletes ConfigMap kube-system/b "+
		"(ManagedResource.resources.gardener.cloud daemon-indirect/settings in cluster runtime, component.managed_resource.settings)) and waits for approval: gardener approve "+s.PlanHash, s.Message)
	assert.Contains(t, s.PlanJSON, `"deletes": "ConfigMap kube-system/b"`)
	require.Eventually(t, func() bool {
		data, _, err := status.Read(ctx)
		return err == nil && data["message"] == s.Message
	}, 10*time.Second, 50*time.Millisecond, "the status says why")

	// Approved, the plan is applied. A plan's hash names the live objects' resourceVersions, and
	// kwok's stages may still move the ManagedResource's status after the plan: an approval is
	// then of a plan that is no longer the daemon's, and the next one is approved in turn.
	require.Eventually(t, func() bool {
		last := d.Last()
		if last.Phase == daemon.PhaseWaitingForApproval {
			_ = status.Approve(ctx, last.PlanHash)
			return false
		}
		return last.Phase == daemon.PhaseApplied || (last.Phase == daemon.PhaseUpToDate && strings.HasPrefix(last.PlanSummary, "No changes"))
	}, 90*time.Second, 200*time.Millisecond, "the approved plan is applied: %+v", d.Last())
	mr, err := cs.CoreV1().Secrets("daemon-indirect").List(ctx, metav1.ListOptions{LabelSelector: "declarative-gardener.io/managed-resource-contents=true"})
	require.NoError(t, err)
	require.Len(t, mr.Items, 1, "the superseded contents Secret is gone")
	assert.NotContains(t, mr.Items[0].Data, "configmap__kube-system__b.yaml", "the contents no longer hold b")
	assert.Contains(t, mr.Items[0].Data, "configmap__kube-system__a.yaml")
	cancel()
	require.NoError(t, <-done)
}
