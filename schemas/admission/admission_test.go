package admission_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/schemas/admission"
)

// registry is the catalog with the admission rules, as the CLI loads landscapes.
func registry(t *testing.T) *schema.Registry {
	t.Helper()
	reg := catalog.Schemas()
	require.NoError(t, reg.AddLandscapeRules(admission.Rules()...))
	return reg
}

// The example landscapes pass every rule: no error and no warning, whatever their variables.
func TestExampleLandscapesPass(t *testing.T) {
	for _, tt := range []struct {
		landscape string
		vars      []string
	}{
		{"local", nil},
		{"local", []string{"hibernate_qa=true"}},
		{"scale", nil},
		{"scale", []string{"shoot_count=0"}},
		{"scale", []string{"shoot_count=100"}},
	} {
		t.Run(strings.Join(append([]string{tt.landscape}, tt.vars...), " "), func(t *testing.T) {
			dir := filepath.Join("..", "..", "landscapes", tt.landscape)
			res, diags := config.Load(dir, registry(t), config.InputSources{Vars: tt.vars})
			assert.Empty(t, text(t, diags, res))
		})
	}
}

// text renders diagnostics as validate prints them, for failure messages.
func text(t *testing.T, diags hcl.Diagnostics, res *config.Result) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, diag.WriteText(&b, diags, res.Files, diag.TextOptions{}))
	return b.String()
}

// FuzzRules loads arbitrary landscapes with the admission rules: loading must never panic,
// whatever the blocks declare.
func FuzzRules(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "cmd", "gardener", "testdata", "admission", "*", "*.hcl"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	reg := catalog.Schemas()
	require.NoError(f, reg.AddLandscapeRules(admission.Rules()...))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o600); err != nil {
			t.Fatal(err)
		}
		res, diags := config.Load(dir, reg, config.InputSources{})
		_ = diag.ToJSON(diags, res.Files)
	})
}
