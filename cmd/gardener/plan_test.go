package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/plan"
)

// The golden scenarios of tests/plan come with snapshots, so the CLI can plan them offline.
func scenario(name string) (dir, snapshot string) {
	base, err := filepath.Abs(filepath.Join("..", "..", "tests", "plan", "testdata", "golden", name))
	if err != nil {
		panic(err)
	}
	return filepath.Join(base, "after"), filepath.Join(base, "snapshot.json")
}

func TestPlanDetailedExitCode(t *testing.T) {
	tests := []struct {
		scenario string
		flags    []string
		want     error
		summary  string
	}{
		{"noop", nil, nil, "No changes. The landscape matches the live clusters."},
		{"update", nil, exitCode(2), "Plan: 0 to add, 2 to change, 0 to replace, 0 to destroy."},
		// An offline plan has no state: it deletes only with --prune-without-state.
		{"delete", nil, nil, "Warning: the landscape's state records nothing, so nothing is deleted: 1 object(s) in cluster runtime carry the label declarative-gardener.io/landscape=golden-delete and would be deleted; plan with --prune-without-state to delete those of this landscape's lineage\nNo changes."},
		{"delete", []string{"--prune-without-state"}, exitCode(2), "Plan: 0 to add, 0 to change, 0 to replace, 1 to destroy."},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			dir, snap := scenario(tt.scenario)
			out, errOut, err := run(t, append([]string{"plan", dir, "--observed", snap, "--detailed-exitcode"}, tt.flags...)...)
			assert.Equal(t, tt.want, err, errOut)
			assert.Contains(t, out, tt.summary)
			// Without --detailed-exitcode a plan with changes still succeeds.
			_, _, err = run(t, append([]string{"plan", dir, "--observed", snap}, tt.flags...)...)
			assert.NoError(t, err)
		})
	}
}

func TestPlanSavedAndShown(t *testing.T) {
	dir, snap := scenario("update")
	planFile := filepath.Join(t.TempDir(), "plan.bin")
	out, errOut, err := run(t, "plan", dir, "--observed", snap, "--out", planFile)
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "Saved the plan to "+planFile)

	shown, _, err := run(t, "show", planFile)
	require.NoError(t, err)
	planned, _, err := run(t, "plan", dir, "--observed", snap)
	require.NoError(t, err)
	assert.Equal(t, planned, shown, "show prints the saved plan as plan printed it")

	shownJSON, _, err := run(t, "show", "--json", planFile)
	require.NoError(t, err)
	plannedJSON, _, err := run(t, "plan", dir, "--observed", snap, "--json")
	require.NoError(t, err)
	assert.JSONEq(t, plannedJSON, shownJSON)
	assert.NotContains(t, shownJSON, "s3cr3t-pa55w0rd")

	f, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	assert.Equal(t, plan.Variable{Sensitive: true}, f.Variables["db_password"], "sensitive variables are saved without their value")
	assert.NotEmpty(t, f.Objects)
	for _, o := range f.Objects {
		assert.NotEmpty(t, o.Hash)
	}
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(shownJSON), &p))
	var rvs int
	for _, c := range p.Components {
		for _, o := range c.Objects {
			if o.ResourceVersion != "" {
				rvs++
			}
		}
	}
	assert.Positive(t, rvs, "observed resourceVersions are saved")
}

func TestPlanTarget(t *testing.T) {
	dir, snap := scenario("create")
	out, errOut, err := run(t, "plan", dir, "--observed", snap, "--json", "--target", "component.manifests.namespace")
	require.NoError(t, err, errOut)
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	require.Len(t, p.Components, 1)
	assert.Equal(t, "component.manifests.namespace", p.Components[0].Address)
	assert.Equal(t, []string{"component.manifests.namespace"}, p.Targets)

	_, errOut, err = run(t, "plan", dir, "--observed", snap, "--target", "component.manifests.nope")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "target")
}

func TestPlanErrors(t *testing.T) {
	dir, snap := scenario("noop")
	_, errOut, err := run(t, "plan", dir, "--observed", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "missing.json")

	_, errOut, err = run(t, "plan", dir, "--observed", snap, "--server-dry-run")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "--server-dry-run needs live clusters")

	_, errOut, err = run(t, "plan", dir, "--observed", snap, "--at", "tonight")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, `--at "tonight" is not a time like 2026-11-22T22:30:00Z`)
	_, errOut, err = run(t, "plan", dir, "--observed", snap, "--at", "2026-11-22T22:30:00Z", "--out", filepath.Join(t.TempDir(), "p"))
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "use --at without --out")
	_, _, err = run(t, "plan", dir, "--observed", snap, "--at", "2026-11-22T22:30:00Z")
	assert.NoError(t, err, "a plan at another time")

	landscapeDir(t, map[string]string{"main.hcl": brokenLandscape})
	_, errOut, err = run(t, "plan", ".", "--observed", snap)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "Reference to undeclared cluster")

	bad := filepath.Join(t.TempDir(), "plan.bin")
	require.NoError(t, os.WriteFile(bad, []byte("{}"), 0o600))
	_, errOut, err = run(t, "show", bad)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "is not a saved plan")
}

// A saved plan records what it was allowed to delete without a state, so that applying it plans
// again the same way; a lineage can be adopted only by a plan with a state.
func TestPlanOwnershipFlags(t *testing.T) {
	dir, snap := scenario("delete")
	planFile := filepath.Join(t.TempDir(), "plan.bin")
	_, errOut, err := run(t, "plan", dir, "--observed", snap, "--prune-without-state", "--out", planFile)
	require.NoError(t, err, errOut)
	f, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	assert.True(t, f.Plan.PruneWithoutState)
	assert.Equal(t, 1, f.Plan.Summary.Destroy)
	shown, _, err := run(t, "show", "--json", planFile)
	require.NoError(t, err)
	assert.Contains(t, shown, `"prune_without_state": true`)

	_, errOut, err = run(t, "plan", dir, "--observed", snap, "--adopt-lineage", "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "--adopt-lineage 6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11 continues the lineage of the landscape's state, and this plan is made without one")
}

func TestApplyRefusesAnAllowDestroyThatIsNoAddress(t *testing.T) {
	dir, _ := scenario("noop")
	// component.manifests names no block: it once allowed every manifests component.
	_, errOut, err := run(t, "apply", dir, "--allow-destroy", "component.manifests")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, `--allow-destroy "component.manifests" is not a block or instance address`)
}
