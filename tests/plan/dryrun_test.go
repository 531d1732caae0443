package plan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// copyScenario copies a golden scenario's landscape (before or after) into a new directory,
// renaming its landscape and namespace so that it does not meet the recorded scenario.
func copyScenario(t *testing.T, scenario, which, rename string) string {
	t.Helper()
	src := filepath.Join("testdata/golden", scenario, which, "main.hcl")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(strings.ReplaceAll(string(data), "golden-"+scenario, rename)), 0o644))
	return dir
}

// changedPaths lists each changed object's field paths.
func changedPaths(p *plan.Plan) map[string][]string {
	out := map[string][]string{}
	for _, c := range p.Components {
		for _, o := range c.Objects {
			if o.Action == plan.NoOp {
				continue
			}
			key := o.Ref.String()
			out[key] = []string{}
			for _, ch := range o.Changes {
				out[key] = append(out[key], ch.Path)
			}
		}
	}
	return out
}

// TestServerDryRunAgreesWithLocalDiff plans an update twice, once diffing locally and once with
// --server-dry-run, and expects the same objects and fields to change.
func TestServerDryRunAgreesWithLocalDiff(t *testing.T) {
	cfg := localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
	connect := liveConnector(cfg, cluster.Options{})
	applyDesired(t, runPlan(t, options(copyScenario(t, "update", "before", "dryrun-update"), connect)))

	after := copyScenario(t, "update", "after", "dryrun-update")
	local := runPlan(t, options(after, connect)).Result.Plan
	opts := options(after, connect)
	opts.ServerDryRun = true
	server := runPlan(t, opts).Result.Plan

	assert.True(t, server.ServerDryRun)
	assert.Equal(t, local.Summary, server.Summary)
	assert.Equal(t, changedPaths(local), changedPaths(server))
	assert.Len(t, changedPaths(server), 2, "the ConfigMap and the Deployment change")
}
