package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --confined and GARDENER_CONFINED make every command that loads a landscape keep its paths
// inside its directory: a refusal is a diagnostic at the expression, exit code 1.
func TestConfinedFlagAndEnvironment(t *testing.T) {
	t.Setenv("GARDENER_CONFINED", "")
	landscapeDir(t, map[string]string{"landscape/main.hcl": `landscape "c" {}
locals {
  leaked = file("../outside.txt")
}
`, "outside.txt": "s3cr3t"})
	t.Chdir("landscape")

	_, errOut, err := run(t, "validate", ".")
	require.NoError(t, err, errOut)

	for _, args := range [][]string{{"validate", "--confined", "."}, {"graph", "--confined", "."}, {"render", "--confined", ".", "--output-dir", t.TempDir()}} {
		_, errOut, err = run(t, args...)
		assert.Equal(t, exitCode(1), err, args)
		assert.Contains(t, errOut, "on main.hcl line 3", args)
		assert.Contains(t, strings.Join(strings.Fields(errOut), " "), "confined mode reads only inside the landscape directory", args)
		assert.NotContains(t, errOut, "s3cr3t", args)
	}

	for _, value := range []string{"1", "true", "yes"} {
		t.Setenv("GARDENER_CONFINED", value)
		_, errOut, err = run(t, "validate", ".")
		assert.Equal(t, exitCode(1), err, value)
		assert.Contains(t, errOut, "confined mode", value)
	}
	for _, value := range []string{"0", "false"} {
		t.Setenv("GARDENER_CONFINED", value)
		_, errOut, err = run(t, "validate", ".")
		assert.NoError(t, err, "%s: %s", value, errOut)
	}
}

// A kubeconfig the landscape ships that runs a program is refused before anything connects: the
// program never runs, and the plan touches nothing.
func TestConfinedPlanRunsNoExecPlugin(t *testing.T) {
	t.Setenv("GARDENER_CONFINED", "")
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	landscapeDir(t, map[string]string{
		"main.hcl": `landscape "c" {}
cluster "c" {
  kubeconfig = "kubeconfig.yaml"
}
component "manifests" "m" {
  cluster = cluster.c
  objects = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x", namespace = "default" } }]
}
`,
		"kubeconfig.yaml": strings.ReplaceAll(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "touch MARKER"]}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, "MARKER", marker),
	})
	_, errOut, err := run(t, "plan", "--confined", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "on main.hcl line 3")
	assert.Contains(t, errOut, "Kubeconfig refused in confined mode")
	assert.Contains(t, strings.Join(strings.Fields(errOut), " "), `runs the exec credential plugin "/bin/sh"`)
	_, statErr := os.Stat(marker)
	assert.True(t, os.IsNotExist(statErr), "the exec plugin never ran")
}
