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
		want     error
		summary  string
	}{
		{"noop", nil, "No changes. The landscape matches the live clusters."},
		{"update", exitCode(2), "Plan: 0 to add, 2 to change, 0 to replace, 0 to destroy."},
		{"delete", exitCode(2), "Plan: 0 to add, 0 to change, 0 to replace, 1 to destroy."},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			dir, snap := scenario(tt.scenario)
			out, errOut, err := run(t, "plan", dir, "--observed", snap, "--detailed-exitcode")
			assert.Equal(t, tt.want, err, errOut)
			assert.Contains(t, out, tt.summary)
			// Without --detailed-exitcode a plan with changes still succeeds.
			_, _, err = run(t, "plan", dir, "--observed", snap)
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

func TestApplyRefusesAnAllowDestroyThatIsNoAddress(t *testing.T) {
	dir, _ := scenario("noop")
	// component.manifests names no block: it once allowed every manifests component.
	_, errOut, err := run(t, "apply", dir, "--allow-destroy", "component.manifests")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, `--allow-destroy "component.manifests" is not a block or instance address`)
}
