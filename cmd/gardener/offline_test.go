package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutKubeconfig runs the test as a new user without any cluster: an empty home directory
// (no ~/.kube/config, no cache) and no KUBECONFIG. It returns the home directory.
func withoutKubeconfig(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, name := range []string{"KUBECONFIG", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(name, "")
		require.NoError(t, os.Unsetenv(name))
	}
	return home
}

// localLandscape is the example landscape of the repository.
func localLandscape(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "landscapes", "local"))
	require.NoError(t, err)
	return dir
}

// `plan --offline` and `render --offline` work without any kubeconfig, like helm template: every
// cluster is empty, nothing connects, and two runs give the same bytes (text, JSON, saved plan,
// rendered files), so that golden tests need no masking.
func TestOfflinePlanAndRenderNeedNoCluster(t *testing.T) {
	home := withoutKubeconfig(t)
	dir := localLandscape(t)
	work := t.TempDir()
	type outputs struct {
		text, json, saved string
		rendered          map[string]string
	}
	runOnce := func(n int) outputs {
		var o outputs
		text, errOut, err := run(t, "plan", dir, "--offline")
		require.NoError(t, err, errOut)
		assert.NotContains(t, errOut, "Error")
		o.text = text
		saved := filepath.Join(work, "plan"+strconv.Itoa(n)+".bin")
		js, errOut, err := run(t, "plan", dir, "--offline", "--json", "--out", saved)
		require.NoError(t, err, errOut)
		o.json = js
		data, err := os.ReadFile(saved)
		require.NoError(t, err)
		o.saved = string(data)
		rendered := filepath.Join(work, "render"+strconv.Itoa(n))
		out, errOut, err := run(t, "render", dir, "--offline", "--output-dir", rendered)
		require.NoError(t, err, errOut)
		assert.Regexp(t, `^Wrote [1-9]\d* objects of [1-9]\d* components to `, out)
		o.rendered = map[string]string{}
		require.NoError(t, filepath.WalkDir(rendered, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			content, err := os.ReadFile(path)
			rel, _ := filepath.Rel(rendered, path)
			o.rendered[rel] = string(content)
			return err
		}))
		return o
	}
	first, second := runOnce(1), runOnce(2)
	assert.Equal(t, first.text, second.text, "the text plans are byte-identical")
	assert.Equal(t, first.json, second.json, "the JSON plans are byte-identical")
	assert.Equal(t, first.saved, second.saved, "the saved plans are byte-identical")
	assert.Equal(t, first.rendered, second.rendered, "the rendered files are byte-identical")

	// A sensible plan: everything is created, in both clusters, nothing else.
	summary := regexp.MustCompile(`Plan: (\d+) to add, 0 to change, 0 to replace, 0 to destroy\.`).FindStringSubmatch(first.text)
	require.NotNil(t, summary, "the text plan ends with its summary")
	adds, _ := strconv.Atoi(summary[1])
	assert.Greater(t, adds, 100)
	var plan struct {
		Summary struct{ Add, Change, Replace, Destroy int } `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(first.json), &plan))
	assert.Equal(t, adds, plan.Summary.Add)
	assert.Zero(t, plan.Summary.Change+plan.Summary.Replace+plan.Summary.Destroy)
	// The plan creates hundreds of objects, so it is compact: one line per created object.
	assert.Contains(t, first.text, "Compact plan: it creates "+summary[1]+" objects")
	assert.Contains(t, first.text, "  + Shoot.core.gardener.cloud garden-local/dev (virtual_garden)\n", "the Gardener API is served offline")
	assert.Contains(t, first.text, "(created: no secret exists yet; generated at apply)", "generated secrets are generated at apply")
	assert.NotContains(t, first.text, "issued-at", "no generated secret carries a time")
	assert.Contains(t, first.rendered, filepath.Join("virtual_garden", "0034-garden.local.gardener_apiserver.yaml"), "every cluster gets its files")

	entries, err := os.ReadDir(home)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was read or cached in the home directory")
}

// --offline plans against empty clusters, so it cannot be combined with another source of them.
func TestOfflineRefusesOtherClusterSources(t *testing.T) {
	dir := localLandscape(t)
	_, errOut, err := run(t, "plan", dir, "--offline", "--observed", "snapshot.json")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "use one of them")
	_, errOut, err = run(t, "plan", dir, "--offline", "--server-dry-run")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "--server-dry-run needs live clusters and cannot be combined with --offline")
}

// A cluster block whose kubeconfig or context does not exist is one diagnostic at the block,
// naming the file and the context looked for and suggesting --offline, and no component is
// blamed for it.
func TestMissingClusterIsOneDiagnosticAtItsBlock(t *testing.T) {
	withoutKubeconfig(t)
	dir := t.TempDir()
	// client-go reads ~ once per process, so the default kubeconfig is named through KUBECONFIG.
	t.Setenv("KUBECONFIG", filepath.Join(dir, "none.yaml"))
	kubeconfig := filepath.Join(dir, "other.yaml")
	require.NoError(t, os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\ncurrent-context: other\ncontexts:\n- name: other\n  context: {cluster: other}\nclusters:\n- name: other\n  cluster: {server: https://127.0.0.1:1}\n"), 0o600))
	landscape := `landscape "l" {}

cluster "absent" {
  kubeconfig = "absent.yaml"
  context    = "runtime"
}

cluster "wrong_context" {
  kubeconfig = "other.yaml"
  context    = "runtime"
}

cluster "default" {}

component "manifests" "a" {
  cluster = cluster.absent
  objects = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "a", namespace = "default" } }]
}

component "manifests" "b" {
  cluster = cluster.wrong_context
  objects = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "b", namespace = "default" } }]
}

component "manifests" "c" {
  cluster = cluster.default
  objects = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = "default" } }]
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(landscape), 0o600))
	for _, command := range [][]string{{"plan", dir}, {"render", dir, "--output-dir", filepath.Join(t.TempDir(), "out")}} {
		t.Run(command[0], func(t *testing.T) {
			_, errOut, err := run(t, command...)
			assert.Equal(t, exitCode(1), err)
			assert.Equal(t, 3, strings.Count(errOut, "Error: "), errOut)
			assert.Equal(t, 3, strings.Count(errOut, "Error: Cluster not found"), errOut)
			assert.NotContains(t, errOut, "Component cannot be rendered")
			for _, want := range []string{
				`on ` + filepath.Join(dir, "main.hcl") + ` line 3, in cluster "absent"`,
				`Cluster "absent" is reached through context "runtime" of kubeconfig ` + filepath.Join(dir, "absent.yaml") + ` (the cluster block's kubeconfig): the file does not exist.`,
				`on ` + filepath.Join(dir, "main.hcl") + ` line 8, in cluster "wrong_context"`,
				`Cluster "wrong_context" is reached through context "runtime" of kubeconfig ` + kubeconfig + ` (the cluster block's kubeconfig): it has no such context.`,
				`on ` + filepath.Join(dir, "main.hcl") + ` line 13, in cluster "default"`,
				`Cluster "default" is reached through the current context of kubeconfig ` + filepath.Join(dir, "none.yaml") + ` (KUBECONFIG): the file does not exist.`,
				"gardener plan --offline",
			} {
				assert.Contains(t, unwrap(errOut), want)
			}
		})
	}
	out, errOut, err := run(t, "plan", dir, "--offline")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "Plan: 3 to add, 0 to change, 0 to replace, 0 to destroy.")
}

// unwrap joins the lines diagnostics are wrapped into.
func unwrap(s string) string { return strings.Join(strings.Fields(s), " ") }
