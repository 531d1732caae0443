package config_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/funcs"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/internal/expect"
)

var update = flag.Bool("update", false, "rewrite golden files")

// readInputs reads a case's inputs.txt: lines "var NAME=VALUE", "var-file PATH" (relative to the
// case) or "env NAME=VALUE".
func readInputs(t *testing.T, dir string) config.InputSources {
	t.Helper()
	var src config.InputSources
	data, err := os.ReadFile(filepath.Join(dir, "inputs.txt"))
	if os.IsNotExist(err) {
		return src
	}
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		kind, value, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch kind {
		case "var":
			src.Vars = append(src.Vars, value)
		case "var-file":
			src.VarFiles = append(src.VarFiles, filepath.Join(dir, value))
		case "env":
			src.Environ = append(src.Environ, value)
		case "":
		default:
			t.Fatalf("inputs.txt: unknown line %q", sc.Text())
		}
	}
	return src
}

// summarize renders diagnostics as "FILE:LINE:COL: Summary" (FILE relative to dir) or
// "-: Summary" for diagnostics without a range, sorted.
func summarize(dir string, diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		sev := ""
		if d.Severity == hcl.DiagWarning {
			sev = "warning: "
		}
		if d.Subject == nil {
			out = append(out, "-: "+sev+d.Summary)
			continue
		}
		name := d.Subject.Filename
		if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		out = append(out, fmt.Sprintf("%s:%d:%d: %s%s", name, d.Subject.Start.Line, d.Subject.Start.Column, sev, d.Summary))
	}
	sort.Strings(out)
	return out
}

func caseDirs(t *testing.T, pattern string) []string {
	t.Helper()
	dirs, err := filepath.Glob(pattern)
	require.NoError(t, err)
	return dirs
}

// TestInvalidLandscapes runs every broken landscape under testdata/invalid and checks that it
// produces exactly the diagnostics its expect.txt lists, each at its line and column.
func TestInvalidLandscapes(t *testing.T) {
	dirs := caseDirs(t, "testdata/invalid/*")
	require.GreaterOrEqual(t, len(dirs), 40, "the corpus covers at least 40 broken landscapes")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res, diags := config.Load(dir, catalog.Schemas(), readInputs(t, dir))
			require.True(t, diags.HasErrors(), "a broken landscape must fail")
			assert.Equal(t, expect.Lines(t, filepath.Join(dir, "expect.txt")), summarize(dir, diags))

			var text bytes.Buffer
			require.NoError(t, diag.WriteText(&text, diags, res.Files, diag.TextOptions{}))
			assert.NotContains(t, text.String(), "s3cr3t", "sensitive values never appear in diagnostics")
			golden := filepath.Join(dir, "diagnostics.golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, text.Bytes(), 0o644))
			}
			if want, err := os.ReadFile(golden); err == nil {
				assert.Equal(t, string(want), text.String())
			}
		})
	}
}

// TestValidLandscapes loads every landscape under testdata/valid and landscapes/ without error.
func TestValidLandscapes(t *testing.T) {
	dirs := append(caseDirs(t, "testdata/valid/*"), caseDirs(t, "../../landscapes/*")...)
	var landscapes []string
	for _, d := range dirs {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			landscapes = append(landscapes, d)
		}
	}
	require.NotEmpty(t, landscapes)
	for _, dir := range landscapes {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res, diags := config.Load(dir, catalog.Schemas(), readInputs(t, dir))
			var text bytes.Buffer
			_ = diag.WriteText(&text, diags, res.Files, diag.TextOptions{})
			require.False(t, diags.HasErrors(), text.String())
			require.NotNil(t, res.Evaluated)
		})
	}
}

// FuzzLoad feeds arbitrary bytes to the loader as a landscape file, and to the functions and
// decoders of landscape expressions as a string and as a file: nothing may panic, whatever the
// input, and hostile inputs (aliases that expand, nesting, long numbers) must end in a diagnostic.
// CI runs it for a bounded number of inputs (make test).
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"testdata/invalid/*/*.hcl", "testdata/valid/*/*.hcl", "../../landscapes/*/*.hcl"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`landscape "x" {}`))
	for _, seed := range []string{
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		`{"a": [[[[1]]]], "b": "${x}"}`,
		"a,b\n1,2\n",
		"aGVsbG8=",
		"%{ for x in [1] }${x}%{ endfor }",
		"123456789012345678901234567890",
		"%5d %-3s %%",
		"- - - x\n",
		`a = (((!!(-1))))`,
	} {
		f.Add([]byte(seed))
	}
	reg := catalog.Schemas()
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o600); err != nil {
			t.Fatal(err)
		}
		res, diags := config.Load(dir, reg, config.InputSources{Trust: landscapefs.Policy{Confined: true}})
		var out bytes.Buffer
		_ = diag.WriteText(&out, diags, res.Files, diag.TextOptions{})
		_ = diag.ToJSON(diags, res.Files)
		callFunctions(t, dir, src)
	})
}

// fuzzedCalls are the calls FuzzLoad makes with its input as text (and as the file "main.hcl").
var fuzzedCalls = []string{
	`yamldecode(text)`, `jsondecode(text)`, `csvdecode(text)`, `base64decode(text)`,
	`templatefile("main.hcl", {x = 1})`, `file("main.hcl")`,
	`tonumber(text)`, `parseint(text, 10)`, `format(text, 1, "x")`, `formatlist(text, ["a", "b"])`,
	`replace(text, "/[a-z]+/", "$0$0")`, `replace(text, "", "xy")`, `split(",", text)`, `regexall("[0-9]", text)`,
	`indent(2, text)`, `jsonencode(yamldecode(text))`, `yamlencode(jsondecode(text))`,
	`setproduct(split(",", text), split(";", text))`, `join(text, split(",", text))`, `flatten(jsondecode(text))`,
}

// callFunctions evaluates fuzzedCalls with text bound to src; errors are expected, panics and
// hangs are not.
func callFunctions(t *testing.T, dir string, src []byte) {
	if !utf8.Valid(src) {
		return
	}
	table := funcs.Table(landscapefs.New(dir, landscapefs.Policy{Confined: true}))
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"text": cty.StringVal(string(src))}, Functions: table}
	for _, call := range fuzzedCalls {
		expr, diags := hclsyntax.ParseExpression([]byte(call), "call.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", call, diags.Error())
		}
		_, _ = expr.Value(ctx)
	}
}
