package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
)

// TestValidateFindsEveryProblemInOneRun: validate runs without clusters and must report every
// independent problem at once, each at its place: a missing file or chart where it is named, a
// kubeconfig that does not exist (a warning: a pipeline may write it later), and a wrong for_each
// of a block that also lacks a required argument.
func TestValidateFindsEveryProblemInOneRun(t *testing.T) {
	dir := t.TempDir()
	writeLandscape(t, dir, map[string]string{
		"main.hcl": `landscape "v" {}
cluster "runtime" {
  kubeconfig = "nonexistent/kubeconfig"
}
component "manifests" "read" {
  cluster = cluster.runtime
  objects = [yamldecode(file("missing.yaml"))]
}
component "manifests" "files" {
  cluster = cluster.runtime
  files   = ["present.yaml", "absent.yaml"]
}
component "helm_release" "chart" {
  cluster   = cluster.runtime
  chart     = "charts/absent"
  namespace = "x"
}
component "manifests" "both" {
  for_each = 3
}
`,
		"present.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n",
	})
	res, diags := config.Load(dir, catalog.Schemas(), config.InputSources{})
	// Only validate warns about kubeconfigs: a plan reports them at the cluster block when it
	// connects, an offline plan needs none.
	assert.NotContains(t, summarize(dir, diags), "main.hcl:3:16: warning: Kubeconfig not found")
	diags = append(diags, res.Evaluated.MissingKubeconfigs()...)
	assert.ElementsMatch(t, []string{
		"main.hcl:3:16: warning: Kubeconfig not found",
		"main.hcl:7:31: Invalid function argument",
		"main.hcl:11:13: No such file or directory",
		"main.hcl:15:15: No such file or directory",
		"main.hcl:18:30: Missing required argument",
		"main.hcl:19:14: Invalid for_each argument",
	}, summarize(dir, diags), diags.Error())
}

// TestMissingKubeconfigInTheHomeDirectory: a kubeconfig under ~/ is looked for in the home
// directory of whoever validates.
func TestMissingKubeconfigInTheHomeDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".kube"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".kube", "runtime"), []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	dir := t.TempDir()
	writeLandscape(t, dir, map[string]string{"main.hcl": `landscape "v" {}
cluster "runtime" {
  kubeconfig = "~/.kube/runtime"
}
cluster "virtual" {
  kubeconfig = "~/.kube/virtual"
}
`})
	res, diags := config.Load(dir, catalog.Schemas(), config.InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	missing := res.Evaluated.MissingKubeconfigs()
	assert.Equal(t, []string{"main.hcl:6:16: warning: Kubeconfig not found"}, summarize(dir, missing), missing.Error())
	assert.Contains(t, missing[0].Detail, `The kubeconfig "~/.kube/virtual" of cluster "virtual" does not exist (yet)`)
}
