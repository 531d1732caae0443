package planner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// An exclusive plan writes exactly its instances: the component it depends on is planned, but
// read-only, and while that component has changes the plan names it as what the scope waits for.
func TestExclusivePlansDependenciesReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	c := localcluster.Shared(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	suffix := time.Now().Format("150405.000000")
	landscape := fmt.Sprintf(`
landscape "scope-test" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "dependency" {
  cluster   = cluster.runtime
  namespace = "default"
  objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "scope-dependency-%[1]s" } }]
}

component "manifests" "mine" {
  cluster    = cluster.runtime
  namespace  = "default"
  depends_on = [component.manifests.dependency]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "scope-mine-%[1]s" } }]
}
`, "x"+suffix[7:])
	dir := landscapetest.Dir(t, map[string]string{"main.hcl": landscape})
	connect := landscapetest.Connector(c.Plane(localcluster.RuntimePlane).RESTConfig(), cluster.Options{})
	scoped := func() *planner.Outcome {
		opts := landscapetest.Options(dir, connect)
		opts.Exclusive = &planner.Exclusive{Instances: []string{"component.manifests.mine"}}
		return landscapetest.Plan(t, opts)
	}
	actions := func(out *planner.Outcome) map[string]plan.Action {
		got := map[string]plan.Action{}
		for _, comp := range out.Result.Plan.Components {
			got[comp.Address] = comp.Action
		}
		return got
	}

	out := scoped()
	assert.Equal(t, []string{"component.manifests.dependency"}, out.Waiting, "the dependency is not applied yet")
	assert.Equal(t, map[string]plan.Action{"component.manifests.dependency": plan.Create, "component.manifests.mine": plan.Create}, actions(out))

	// The dependency's own shard applies it (here: a targeted apply).
	opts := landscapetest.Options(dir, connect)
	opts.Targets = []string{"component.manifests.dependency"}
	_, diags, err := apply.Landscape(context.Background(), apply.LandscapeOptions{Planner: opts, NoReport: true})
	require.False(t, diags.HasErrors(), diags.Error())
	require.NoError(t, err)

	out = scoped()
	assert.Empty(t, out.Waiting, "the dependency is applied")
	assert.Equal(t, map[string]plan.Action{"component.manifests.dependency": plan.NoOp, "component.manifests.mine": plan.Create}, actions(out))

	// Once mine is applied and removed from the landscape, the scope that owns it deletes it;
	// a scope that does not own it leaves it to the scope that does.
	opts = landscapetest.Options(dir, connect)
	opts.Exclusive = &planner.Exclusive{Instances: []string{"component.manifests.mine"}}
	_, diags, err = apply.Landscape(context.Background(), apply.LandscapeOptions{Planner: opts, NoReport: true})
	require.False(t, diags.HasErrors(), diags.Error())
	require.NoError(t, err)
	landscapetest.Write(t, dir, map[string]string{"main.hcl": strings.Split(landscape, `component "manifests" "mine"`)[0]})
	for _, owns := range []bool{false, true} {
		opts := landscapetest.Options(dir, connect)
		opts.ReadState = func(res *config.Result) (*state.State, error) {
			b, err := planner.OpenState(res, cluster.Options{})
			if err != nil {
				return nil, err
			}
			return b.Read(context.Background())
		}
		opts.Exclusive = &planner.Exclusive{Instances: []string{"component.manifests.dependency"}, Owns: func(addr string) bool {
			return owns && addr == "component.manifests.mine"
		}}
		out := landscapetest.Plan(t, opts)
		assert.Empty(t, out.Waiting)
		if owns {
			assert.Equal(t, map[string]plan.Action{"component.manifests.dependency": plan.NoOp, "component.manifests.mine": plan.Delete}, actions(out))
		} else {
			assert.Equal(t, map[string]plan.Action{"component.manifests.dependency": plan.NoOp}, actions(out))
		}
	}

	_, _, err = planner.Plan(context.Background(), planner.Options{Dir: dir, Exclusive: &planner.Exclusive{}})
	assert.ErrorContains(t, err, "names no instance")
}
