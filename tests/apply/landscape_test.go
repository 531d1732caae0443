package apply_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// applyLandscape applies dir like `gardener apply --auto-approve`, with the local state backend
// (gardener.state in dir).
func applyLandscape(t *testing.T, cfg *rest.Config, dir string, mutate func(*apply.LandscapeOptions)) (*apply.LandscapeResult, error) {
	t.Helper()
	o := apply.LandscapeOptions{
		Planner: landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{})),
		Lock:    state.LockInfo{Holder: "test", Operation: "apply"},
		Apply:   apply.Options{Timeout: 30 * time.Second},
	}
	if mutate != nil {
		mutate(&o)
	}
	res, diags, err := apply.Landscape(context.Background(), o)
	landscapetest.RequireNoDiags(t, diags, res.Outcome)
	if err == nil && res.Result != nil {
		err = res.Result.Err()
	}
	return res, err
}

func deployment(component, namespace, name, extra string) string {
	return `
component "manifests" "` + component + `" {
  cluster   = cluster.runtime
  namespace = "` + namespace + `"
  objects = [{
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "` + name + `" }
    spec = {
      replicas = 2
      selector = { matchLabels = { app = "` + name + `" } }
      template = {
        metadata = { labels = { app = "` + name + `" } }
        spec     = { ` + extra + ` containers = [{ name = "app", image = "registry.local/app:1" }] }
      }
    }
  }]
}
`
}

func TestStatePrunesKindsTheLandscapeNoLongerRenders(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("state-prune", deployment("web", "state-prune", "web", "")))
	_, err := applyLandscape(t, cfg, dir, nil)
	require.NoError(t, err)
	st, err := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath)).Read(context.Background())
	require.NoError(t, err)
	require.Contains(t, st.Components, "component.manifests.web")
	require.NotEmpty(t, st.Components["component.manifests.web"].Objects[0].UID)

	// No component renders a Deployment any more: only the state says to look for one.
	landscapetest.Write(t, dir, landscape("state-prune"))
	res, err := applyLandscape(t, cfg, dir, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Outcome.Result.Plan.Summary.Destroy)
	assert.Equal(t, []string{"Namespace state-prune"}, owned(t, cfg, "state-prune"))
	st, err = state.NewLocal(filepath.Join(dir, state.DefaultLocalPath)).Read(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, st.Components, "component.manifests.web")
}

func TestReadinessGatesDependents(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("ready-gate",
		deployment("rolls_out", "ready-gate", "ok", ""),
		// No node matches: the rollout never completes.
		deployment("stuck", "ready-gate", "stuck", `nodeSelector = { "no-such-label" = "x" },`)+`
component "manifests" "stuck_briefly" {
  cluster    = cluster.runtime
  namespace  = "ready-gate"
  depends_on = [component.manifests.rolls_out]
  objects    = [{ apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "briefly" }, spec = { replicas = 1, selector = { matchLabels = { app = "briefly" } }, template = { metadata = { labels = { app = "briefly" } }, spec = { nodeSelector = { "no-such-label" = "x" }, containers = [{ name = "app", image = "x" }] } } } }]
  lifecycle {
    ready_timeout = "2s"
  }
}
`,
		configMaps("after_stuck", "ready-gate", "depends_on = [component.manifests.stuck]", "after"),
		configMaps("after_ok", "ready-gate", "depends_on = [component.manifests.rolls_out]", "ok-after"),
	))
	res, err := applyLandscape(t, cfg, dir, func(o *apply.LandscapeOptions) { o.Apply.Timeout = 5 * time.Second })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "component.manifests.stuck failed: not ready after 5s")
	assert.Contains(t, err.Error(), "component.manifests.stuck_briefly failed: not ready after 2s", "lifecycle { ready_timeout } overrides --timeout")
	assert.Contains(t, err.Error(), "Deployment ready-gate/stuck")
	assert.Contains(t, err.Error(), "component.manifests.after_stuck blocked by component.manifests.stuck")
	got := map[string]apply.Status{}
	for _, c := range res.Result.Components {
		got[c.Address] = c.Status
	}
	assert.Equal(t, apply.Applied, got["component.manifests.rolls_out"], "a Deployment that rolls out is ready")
	assert.Equal(t, apply.Applied, got["component.manifests.after_ok"])
}

func TestConcurrentAppliesAreSerialisedByTheLock(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("lock-held", configMaps("app", "lock-held", "", "a")))
	backend := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath))
	held, err := backend.Lock(context.Background(), state.LockInfo{Holder: "alice@ops pid 1", Operation: "apply"})
	require.NoError(t, err)

	_, err = applyLandscape(t, cfg, dir, nil)
	var locked *state.LockedError
	require.True(t, errors.As(err, &locked), "got %v", err)
	assert.Equal(t, "alice@ops pid 1", locked.Holder)
	assert.Empty(t, owned(t, cfg, "lock-held"), "nothing was applied")

	// The holder died: force-unlock with the ID the error names, then apply.
	require.NoError(t, backend.ForceUnlock(context.Background(), locked.ID))
	_, err = applyLandscape(t, cfg, dir, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"ConfigMap lock-held/a", "Namespace lock-held"}, owned(t, cfg, "lock-held"))
	_ = held
}

func TestASecondApplyWaitsForTheLock(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("lock-wait", configMaps("app", "lock-wait", "", "a")))
	backend := state.NewLocal(filepath.Join(dir, state.DefaultLocalPath))
	held, err := backend.Lock(context.Background(), state.LockInfo{Holder: "bob", Operation: "apply"})
	require.NoError(t, err)
	go func() {
		time.Sleep(time.Second)
		_ = held.Unlock(context.Background())
	}()
	start := time.Now()
	_, err = applyLandscape(t, cfg, dir, func(o *apply.LandscapeOptions) { o.Lock.Wait = 30 * time.Second })
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), time.Second)
}
