package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// bulkLandscape creates one Namespace and count ConfigMaps in it on the runtime cluster.
func bulkLandscape(count int) string {
	return fmt.Sprintf(`landscape "bulk" {}
variable "kubeconfig" {
  type = string
}
cluster "runtime" {
  kubeconfig = var.kubeconfig
  context    = "runtime"
}
component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "bulk" } }]
}
component "manifests" "bulk" {
  cluster    = cluster.runtime
  namespace  = "bulk"
  depends_on = [component.manifests.namespace]
  objects = [for i in range(%d) : {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = format("cm-%%03d", i) }
    data       = { index = tostring(i) }
  }]
}
`, count)
}

// runWithInput runs the CLI with stdin, as an operator answering a question would.
func runWithInput(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := newRootCommand(&stdout, &stderr)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return stdout.String(), stderr.String(), err
}

// A plan that creates more than 200 objects is compact unless asked for in full, in plan, in
// show and in the plan apply prints before asking; --detail chooses either form.
func TestPlanCreatingManyObjectsIsCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane})
	creates := views.CompactThreshold + 1 // with the Namespace, one more than the threshold
	landscapeDir(t, map[string]string{"main.hcl": bulkLandscape(creates - 1)})
	kubeconfig := "kubeconfig=" + lc.Kubeconfig()
	note := fmt.Sprintf("Compact plan: it creates %d objects (more than %d), so it lists one line per object and fields only of objects updated in place. Show every field with --detail=full.\n", creates, views.CompactThreshold)
	planFile := filepath.Join(t.TempDir(), "plan.bin")

	planned, errOut, err := run(t, "plan", "--var", kubeconfig, "--out", planFile, ".")
	require.NoError(t, err, errOut)
	shown, errOut, err := run(t, "show", planFile)
	require.NoError(t, err, errOut)
	asked, errOut, err := runWithInput(t, "no\n", "apply", "--var", kubeconfig, ".")
	assert.Equal(t, exitCode(1), err, errOut)
	assert.Contains(t, asked, "Apply cancelled.")
	for name, out := range map[string]string{"plan": planned, "show": shown, "apply": asked} {
		has(t, out, "gardener will perform the following actions on landscape \"bulk\":\n"+note, name)
		has(t, out, fmt.Sprintf("# component.manifests.bulk: %d to add\n  + ConfigMap bulk/cm-000 (runtime)\n  + ConfigMap bulk/cm-001 (runtime)\n", creates-1), name)
		assert.False(t, strings.Contains(out, ".data[index]"), name)
		has(t, out, fmt.Sprintf("Plan: %d to add, 0 to change, 0 to replace, 0 to destroy.", creates), name)
	}

	for _, args := range [][]string{{"plan", "--var", kubeconfig, "--detail=full", "."}, {"show", "--detail", "full", planFile}} {
		full, errOut, err := run(t, args...)
		require.NoError(t, err, errOut)
		assert.False(t, strings.Contains(full, "Compact plan"), args[0])
		has(t, full, "  + ConfigMap bulk/cm-000 (runtime) will be created [missing]\n      + .apiVersion = \"v1\"\n      + .data[index] = \"0\"\n", args[0])
	}

	// A smaller plan is full unless asked for compact.
	landscapeDir(t, map[string]string{"main.hcl": bulkLandscape(3)})
	full, errOut, err := run(t, "plan", "--var", kubeconfig, ".")
	require.NoError(t, err, errOut)
	assert.False(t, strings.Contains(full, "Compact plan"))
	has(t, full, "      + .data[index] = \"0\"\n", "plan")
	compact, errOut, err := run(t, "plan", "--var", kubeconfig, "--detail", "compact", ".")
	require.NoError(t, err, errOut)
	assert.Contains(t, compact, "Compact plan (--detail=compact): one line per object, fields only of objects updated in place.\n")
	assert.Contains(t, compact, "# component.manifests.bulk: 3 to add\n")
}

// has asserts that out contains want without quoting out, which is thousands of lines long.
func has(t *testing.T, out, want, name string) {
	t.Helper()
	assert.True(t, strings.Contains(out, want), "%s: the output does not contain %q", name, want)
}

func TestDetailFlagRefusesUnknownValues(t *testing.T) {
	dir, snap := scenario("noop")
	_, _, err := run(t, "plan", dir, "--observed", snap, "--detail", "summary")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `invalid argument "summary" for "--detail" flag: unknown detail "summary": use auto, full or compact`)
}

func TestDetailFlagCompletes(t *testing.T) {
	for _, command := range []string{"plan", "show", "apply", "destroy"} {
		out, _, err := run(t, "__complete", command, "--detail", "")
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(out, "auto\nfull\ncompact\n:4\n"), "%s: %q", command, out)
	}
}
