package config_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/internal/bounded"
)

// writeLandscape writes files (relative to dir; a value "fifo" makes a FIFO, "-> target" a
// symbolic link) into dir.
func writeLandscape(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch {
		case content == "fifo":
			require.NoError(t, syscall.Mkfifo(p, 0o600))
		case strings.HasPrefix(content, "-> "):
			require.NoError(t, os.Symlink(strings.TrimPrefix(content, "-> "), p))
		default:
			require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		}
	}
}

const header = "landscape \"l\" {}\n"

// iterationBudget is the budget of the inputs that run into limits.MaxIterations: the quarter
// million iterations allowed are real work (a number each here: about 60 MiB, and under a second
// on an idle machine, but 12 s were seen with the machine's two cores shared by a dozen
// processes).
var iterationBudget = bounded.Budget{Time: 30 * time.Second, Heap: bounded.Default.Heap}

// TestHostileLandscapes: landscapes that would hang the loader, exhaust its memory or overflow
// its stack get a diagnostic at the place that would have, within a second and in bounded memory.
func TestHostileLandscapes(t *testing.T) {
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for _, c := range "bcdefghi" {
		p := string(c - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	doubling := "locals {\n  l0 = [\"lol\", \"lol\"]\n"
	for i := 1; i <= 40; i++ {
		doubling += fmt.Sprintf("  l%d = [local.l%d, local.l%d]\n", i, i-1, i-1)
	}
	doubling += "}\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		// budget is bounded.Default unless set.
		budget *bounded.Budget
	}{
		{
			name:  "billion laughs",
			files: map[string]string{"main.hcl": header + "locals {\n  bomb = yamldecode(file(\"laughs.yaml\"))\n}\n", "laughs.yaml": laughs},
			want:  []string{"main.hcl:3:21: Invalid function argument"},
		},
		{
			name:  "dev zero",
			files: map[string]string{"main.hcl": header + "locals {\n  zero = file(\"/dev/zero\")\n}\n"},
			want:  []string{"main.hcl:3:16: Invalid function argument"},
		},
		{
			name:  "fifo read by file()",
			files: map[string]string{"main.hcl": header + "locals {\n  fifo = file(\"pipe\")\n}\n", "pipe": "fifo"},
			want:  []string{"main.hcl:3:16: Invalid function argument"},
		},
		{
			name:  "fifo as a landscape file",
			files: map[string]string{"main.hcl": header, "pipe.hcl": "fifo"},
			want:  []string{"pipe.hcl:1:1: Unreadable file"},
		},
		{
			name:  "parentheses",
			files: map[string]string{"main.hcl": header + "locals {\n  deep = " + strings.Repeat("(", 300000) + "1" + strings.Repeat(")", 300000) + "\n}\n"},
			want:  []string{"main.hcl:3:" + fmt.Sprint(10+199) + ": Nesting too deep"},
		},
		{
			name:  "negations",
			files: map[string]string{"main.hcl": header + "locals {\n  deep = " + strings.Repeat("!", 300000) + "true\n}\n"},
			want:  []string{"main.hcl:3:" + fmt.Sprint(10+199) + ": Nesting too deep"},
		},
		{
			name:  "json syntax",
			files: map[string]string{"main.hcl": header, "deep.hcl.json": `{"locals": {"deep": ` + strings.Repeat("[", 300000) + strings.Repeat("]", 300000) + `}}`},
			want:  []string{"deep.hcl.json:1:" + fmt.Sprint(21+198) + ": Nesting too deep"},
		},
		{
			name:  "long number",
			files: map[string]string{"main.hcl": header + "locals {\n  n = " + strings.Repeat("1", 1000000) + "\n}\n"},
			want:  []string{"main.hcl:3:7: Number too long"},
		},
		{
			name:  "doubling locals",
			files: map[string]string{"main.hcl": header + doubling},
			// l18 holds 2^19 strings, more than a value may; l38, built from the unknown
			// values that stand in for l18 and what depends on it, holds as many unknowns.
			want: []string{"main.hcl:21:9: Value too large", "main.hcl:41:9: Value too large"},
		},
		{
			name:  "setproduct",
			files: map[string]string{"main.hcl": header + "locals {\n  p = setproduct(range(1000), range(1000), range(1000))\n}\n"},
			want:  []string{"main.hcl:3:7: Error in function call"},
		},
		{
			// 10^9 iterations (range makes at most 1,024 values): minutes of work and hundreds of
			// gigabytes without a bound.
			name:   "nested for expressions",
			budget: &iterationBudget,
			files:  map[string]string{"main.hcl": header + "locals {\n  n = [for a in range(1000) : [for b in range(1000) : [for c in range(1000) : a + b + c]]]\n}\n"},
			want:   []string{"main.hcl:3:65: Error in function call"},
		},
		{
			name:   "nested for directives in a template",
			budget: &iterationBudget,
			files: map[string]string{
				"main.hcl": header + "locals {\n  t = templatefile(\"t.tpl\", { n = 1000 })\n}\n",
				"t.tpl":    "%{ for a in range(n) }%{ for b in range(n) }%{ for c in range(n) }x%{ endfor }%{ endfor }%{ endfor }",
			},
			want: []string{"main.hcl:3:7: Error in function call"},
		},
	}
	reg := catalog.Schemas()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeLandscape(t, dir, tt.files)
			budget := bounded.Default
			if tt.budget != nil {
				budget = *tt.budget
			}
			diags := bounded.Run(t, budget, func() hcl.Diagnostics {
				res, diags := config.Load(dir, reg, config.InputSources{})
				var text bytes.Buffer
				require.NoError(t, diag.WriteText(&text, diags, res.Files, diag.TextOptions{}))
				return diags
			})
			require.True(t, diags.HasErrors())
			assert.Equal(t, tt.want, summarize(dir, diags), diags.Error())
		})
	}
}

// A value given on the command line or in the environment is parsed as HCL for collection types:
// its nesting is bounded as well.
func TestDeepVariableValueIsADiagnostic(t *testing.T) {
	dir := t.TempDir()
	writeLandscape(t, dir, map[string]string{"main.hcl": header + "variable \"zones\" {\n  type = list(any)\n}\n"})
	deep := strings.Repeat("[", 300000) + strings.Repeat("]", 300000)
	diags := bounded.Run(t, bounded.Default, func() hcl.Diagnostics {
		_, diags := config.Load(dir, catalog.Schemas(), config.InputSources{Vars: []string{"zones=" + deep}})
		return diags
	})
	require.True(t, diags.HasErrors())
	assert.Equal(t, "Invalid value for input variable", diags[0].Summary)
	assert.Contains(t, diags[0].Detail, "nested deeper than 200 levels")
}
