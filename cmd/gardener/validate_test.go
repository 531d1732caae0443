package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
)

func TestValidateExampleLandscape(t *testing.T) {
	out, errOut, err := run(t, "validate", filepath.Join("..", "..", "landscapes", "local"))
	require.NoError(t, err, errOut)
	assert.Equal(t, "Success! The landscape is valid.\n", out)
	assert.Empty(t, errOut)
}

const brokenLandscape = `landscape "broken" {}
cluster "runtime" {}
component "helm_release" "x" {
  cluster   = cluster.runtme
  chart     = "./chart"
  namespace = "Not_A_Namespace"
}
`

func TestValidateReportsEveryProblem(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": brokenLandscape})
	out, errOut, err := run(t, "validate", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Empty(t, out)
	golden(t, "validate/broken.golden", errOut)
}

func TestValidateJSON(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": brokenLandscape})
	out, _, err := run(t, "validate", "--json", ".")
	assert.Equal(t, exitCode(1), err)
	var got validateJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "1.0", got.FormatVersion.String())
	assert.False(t, got.Valid)
	assert.Equal(t, 1, got.ErrorCount, "the namespace check waits until the cluster reference is fixed")
	require.Len(t, got.Diagnostics, 1)
	d := got.Diagnostics[0]
	assert.Equal(t, "Reference to undeclared cluster", d.Summary)
	require.NotNil(t, d.Range)
	assert.Equal(t, 4, d.Range.Start.Line)
	assert.Equal(t, 15, d.Range.Start.Column)
	require.NotNil(t, d.Snippet)
	assert.Equal(t, "cluster.runtme", d.Snippet.Code[d.Snippet.HighlightStartOffset:d.Snippet.HighlightEndOffset])
}

func TestValidateVariablesFromFlags(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": `landscape "v" {}
variable "replicas" {
  type = number
  validation {
    condition     = var.replicas > 0
    error_message = "replicas must be positive"
  }
}
`, "prod.vars": "replicas = 2\n"})
	_, errOut, err := run(t, "validate", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "No value for required variable")

	_, _, err = run(t, "validate", "--var-file", "prod.vars", ".")
	assert.NoError(t, err)

	_, errOut, err = run(t, "validate", "--var-file", "prod.vars", "--var", "replicas=0", ".")
	assert.Equal(t, exitCode(1), err, "--var wins over the var file")
	assert.Contains(t, errOut, "replicas must be positive")

	t.Setenv("GARDENER_VAR_replicas", "3")
	_, _, err = run(t, "validate", ".")
	assert.NoError(t, err)
}

func TestValidateNeedsADirectory(t *testing.T) {
	_, _, err := run(t, "validate")
	assert.Error(t, err)
	landscapeDir(t, nil)
	_, errOut, err := run(t, "validate", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "No landscape files")
}

func TestComponents(t *testing.T) {
	out, _, err := run(t, "components")
	require.NoError(t, err)
	for _, want := range []string{"garden", "seed", "shoot", "helm_release", "manifests"} {
		assert.Contains(t, out, want)
	}
	out, _, err = run(t, "components", "seed")
	require.NoError(t, err)
	assert.Contains(t, out, "# `seed` block")

	_, _, err = run(t, "components", "sed")
	assert.ErrorContains(t, err, `no component type or block "sed"`)
}

func TestSchemaJSON(t *testing.T) {
	out, _, err := run(t, "schema", "--json")
	require.NoError(t, err)
	var doc struct {
		FormatVersion string `json:"format_version"`
		Schemas       []struct {
			Kind string `json:"kind"`
			Type string `json:"type"`
		} `json:"schemas"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "1.0", doc.FormatVersion)
	assert.Len(t, doc.Schemas, len(catalog.Schemas().All()))

	md, _, err := run(t, "schema")
	require.NoError(t, err)
	assert.Contains(t, md, "# `shoot` block")
}

// TestValidateShootNetworksMustNotOverlapTheSeed changes the example landscape so that a shoot's
// pod network overlaps its seed's: the rule from the Gardener documents (Gardener's "Gardener
// Scheduler" docs/concepts/scheduler.md) is reported at the shoot's expression.
func TestValidateShootNetworksMustNotOverlapTheSeed(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "..", "landscapes", "local"))
	require.NoError(t, err)
	files := map[string]string{}
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue // charts; validation reads only the landscape's *.hcl files
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(data)
	}
	require.Contains(t, files["shoots.hcl"], `pods     = "10.3.0.0/16"`)
	files["shoots.hcl"] = strings.Replace(files["shoots.hcl"], `pods     = "10.3.0.0/16"`, `pods     = "10.1.128.0/17"`, 1)
	landscapeDir(t, files)

	_, errOut, err := run(t, "validate", ".")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, 1, strings.Count(errOut, "Error: Invalid value for pods"), errOut)
	line := 1 + strings.Count(files["shoots.hcl"][:strings.Index(files["shoots.hcl"], `"10.1.128.0/17"`)], "\n")
	assert.Contains(t, errOut, fmt.Sprintf(`on shoots.hcl line %d, in shoot "dev"`, line))
	assert.Contains(t, errOut, "The network networking.pods (10.1.128.0/17) overlaps the seed's networks.pods")
}
