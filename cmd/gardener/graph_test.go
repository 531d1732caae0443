package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
)

// runGraph runs `gardener graph` on its own, configured as the root command configures its
// subcommands; it returns stdout, stderr and the error.
func runGraph(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := newGraphCommand(catalogSchemas())
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return stdout.String(), stderr.String(), err
}

func TestGraphGolden(t *testing.T) {
	local := filepath.Join("..", "..", "landscapes", "local")
	components := filepath.Join("testdata", "graph", "components")
	tests := []struct {
		golden string
		args   []string
	}{
		{golden: "local.txt", args: []string{local}},
		{golden: "local.dot", args: []string{"--format", "dot", local}},
		{golden: "local.mmd", args: []string{"--format", "mermaid", local}},
		{golden: "local-qa-hibernated.txt", args: []string{"--var", "hibernate_qa=true", local}},
		{golden: "components.txt", args: []string{"--format", "text", components}},
		{golden: "components.dot", args: []string{"--format", "dot", components}},
		{golden: "components.mmd", args: []string{"--format", "mermaid", components}},
		{golden: "components.json", args: []string{"--format", "json", components}},
		// --target keeps the target and what it depends on, as plan --target does.
		{golden: "local-target-dev.txt", args: []string{"--target", "shoot.dev", local}},
		{golden: "local-target-calico.dot", args: []string{"--format", "dot", "--target", "component.extension.networking_calico", local}},
		{golden: "components.html", args: []string{"--format", "html", components}},
		{golden: "components-target.txt", args: []string{"--target", "component.helm_release.prometheus[1]", "--target", "component.helm_release.cluster_api", components}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, errOut, err := runGraph(t, tt.args...)
			require.NoError(t, err, errOut)
			assert.Empty(t, errOut)
			golden(t, filepath.Join("graph", tt.golden+".golden"), out)
			again, _, err := runGraph(t, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, out, again, "the output is the same on every run")
		})
	}
}

func TestGraphOfABrokenLandscape(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": brokenLandscape})
	out, errOut, err := runGraph(t, ".")
	assert.Equal(t, exitCode(1), err)
	assert.Empty(t, out)
	golden(t, "graph/broken.golden", errOut)
}

func TestGraphVariablesFromFiles(t *testing.T) {
	landscapeDir(t, map[string]string{
		"main.hcl": `landscape "v" {}
variable "names" { type = set(string) }
cluster "runtime" {}
component "manifests" "m" {
  for_each = var.names
  cluster  = cluster.runtime
  objects  = []
}
`,
		"two.vars": "names = [\"b\", \"a\"]\n",
	})
	_, errOut, err := runGraph(t, ".")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "No value for required variable")

	out, _, err := runGraph(t, "--var-file", "two.vars", ".")
	require.NoError(t, err)
	assert.Equal(t, "component.manifests.m[\"a\"]\ncomponent.manifests.m[\"b\"]\n", out)
}

func TestGraphUnknownTarget(t *testing.T) {
	out, errOut, err := runGraph(t, "--target", "shoot.deev", filepath.Join("..", "..", "landscapes", "local"))
	assert.Equal(t, exitCode(1), err)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `The target "shoot.deev" names shoot.deev, which the landscape does not`)
	assert.Contains(t, errOut, "Did you mean shoot.dev?")
}

func TestGraphUsageErrors(t *testing.T) {
	_, _, err := runGraph(t, "--format", "svg", ".")
	assert.EqualError(t, err, `unknown format "svg": use text, dot, mermaid, json or html`)
	_, _, err = runGraph(t, "a", "b")
	assert.EqualError(t, err, "accepts at most 1 arg(s), received 2")
}

func TestGraphHelp(t *testing.T) {
	cmd := newGraphCommand(catalog.Schemas())
	assert.True(t, strings.HasPrefix(cmd.Use, "graph [DIR]"))
	for _, want := range []string{"text", "dot", "mermaid", "depends_on", "--target", "legend"} {
		assert.Contains(t, cmd.Long, want)
	}
	assert.Contains(t, cmd.Example, "gardener graph --format dot")
}

// landscapes/scale renders for any shoot count: the garden, three seeds and var.shoot_count
// shoots spread over them round-robin, each expanded into its control-plane parts.
func TestScaleLandscapeRenders(t *testing.T) {
	scale := filepath.Join("..", "..", "landscapes", "scale")
	for _, count := range []int{0, 7, 30} {
		out, errOut, err := runGraph(t, "--var", fmt.Sprintf("shoot_count=%d", count), scale)
		require.NoError(t, err, errOut)
		assert.Empty(t, errOut)
		shoots := map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			addr, _, _ := strings.Cut(line, " ")
			if strings.HasPrefix(addr, "shoot.") && strings.HasSuffix(addr, "].shoot") {
				seed, _, _ := strings.Cut(strings.TrimPrefix(addr, "shoot."), "[")
				shoots[seed]++
			}
		}
		total := shoots["on_s1"] + shoots["on_s2"] + shoots["on_s3"]
		assert.Equal(t, count, total, "one Shoot per shoot")
		assert.Equal(t, (count+2)/3, shoots["on_s1"], "round-robin over the seeds")
		assert.Equal(t, count/3, shoots["on_s3"])
		for _, seed := range []string{"seed.s1", "seed.s2", "seed.s3"} {
			assert.Contains(t, out, "\n"+seed+".istio <", "every seed has its system components")
			assert.NotContains(t, out, "\n"+seed+".gardenlet <", "the engine is the seeds' gardenlet")
		}
	}
}
