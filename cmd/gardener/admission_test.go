package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/internal/expect"
	"github.com/declarative-gardener/gardener/schemas/admission"
)

// TestAdmissionCorpus validates every landscape under testdata/admission with `gardener validate`
// as a user would, from inside the landscape's directory. Each case's expect.txt lists the
// diagnostics it must produce, exactly, as FILE:LINE:COL: [warning: ]Summary; its
// validate.golden holds the full text output (go test -update rewrites it). A case without
// errors must pass validation.
func TestAdmissionCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(testdataDir, "admission", "*"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 10, "the corpus covers at least ten broken landscapes")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			want := expect.Lines(t, filepath.Join(dir, "expect.txt"))
			t.Chdir(dir)

			out, _, err := run(t, "validate", "--json", ".")
			var got validateJSON
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
			var lines []string
			for _, d := range got.Diagnostics {
				severity := ""
				if d.Severity == "warning" {
					severity = "warning: "
				}
				require.NotNil(t, d.Range, "every admission diagnostic has a place: %s", d.Summary)
				lines = append(lines, fmt.Sprintf("%s:%d:%d: %s%s", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column, severity, d.Summary))
			}
			sort.Strings(lines)
			assert.Equal(t, want, lines)
			if slices.ContainsFunc(want, func(l string) bool { return !strings.Contains(l, ": warning: ") }) {
				assert.Equal(t, exitCode(1), err)
			} else {
				assert.NoError(t, err)
			}

			_, errOut, _ := run(t, "validate", ".")
			golden(t, filepath.Join("admission", name, "validate.golden"), errOut)
		})
	}
}

// TestCatalogSchemas checks that the CLI's registry carries the admission rules next to every
// schema of the catalog.
func TestCatalogSchemas(t *testing.T) {
	reg := catalogSchemas()
	assert.Len(t, reg.All(), len(catalog.Schemas().All()))
	assert.Len(t, reg.LandscapeRules(), len(admission.Rules()))
}
