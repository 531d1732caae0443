package funcs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/internal/bounded"
)

// billionLaughs is the classic YAML alias bomb: 479 bytes whose aliases expand to 9^9 strings.
const billionLaughs = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

// TestHostileInputsGetDiagnostics: every input that would hang the process, exhaust its memory
// or overflow its stack gets a diagnostic at the expression instead, within a second and in
// bounded memory.
func TestHostileInputsGetDiagnostics(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "laughs.yaml"), []byte(billionLaughs), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deep.tftpl"), []byte("${"+strings.Repeat("(", 100000)+"1"+strings.Repeat(")", 100000)+"}"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "negations.tftpl"), []byte("${"+strings.Repeat("!", 200000)+"true}"), 0o600))
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20))
	require.NoError(t, f.Close())

	// doubled holds the one before it twice, 40 times: small in memory, 2^40 strings when
	// encoded or flattened.
	doubled := cty.StringVal("lol")
	for range 40 {
		doubled = cty.TupleVal([]cty.Value{doubled, doubled})
	}
	vars := map[string]cty.Value{
		"big_string":  cty.StringVal(strings.Repeat("x", 60<<20)),
		"doubled":     doubled,
		"laughs":      cty.StringVal(billionLaughs),
		"deep_json":   cty.StringVal(strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000)),
		"deep_yaml":   cty.StringVal(strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000)),
		"nested_seqs": cty.StringVal(strings.Repeat("- ", 100000) + "x"),
		"mb":          cty.StringVal(strings.Repeat("x", 1<<20)),
	}
	tests := []struct {
		name string
		expr string
		want string
	}{
		{name: "billion laughs", expr: `yamldecode(laughs)`, want: "aliases"},
		{name: "billion laughs from a file", expr: `length(yamldecode(file("laughs.yaml")))`, want: "aliases"},
		{name: "dev zero", expr: `file("/dev/zero")`, want: "not a regular file (it is a character device)"},
		{name: "fifo", expr: `file("fifo")`, want: "not a regular file (it is a FIFO)"},
		{name: "fifo template", expr: `templatefile("fifo", {})`, want: "not a regular file (it is a FIFO)"},
		{name: "directory", expr: `file("sub")`, want: "is a directory"},
		{name: "large file", expr: `file("big")`, want: "larger than 16 MiB"},
		{name: "setproduct", expr: `setproduct(range(1000), range(1000), range(1000), range(1000))`, want: "setproduct would build 1000000000000 elements"},
		{name: "deep json", expr: `jsondecode(deep_json)`, want: "nested deeper than"},
		{name: "deep yaml", expr: `yamldecode(deep_yaml)`, want: "nested deeper than"},
		{name: "deep yaml block sequences", expr: `yamldecode(nested_seqs)`, want: "nested deeper than"},
		{name: "deep template", expr: `templatefile("deep.tftpl", {})`, want: "nested deeper than"},
		{name: "template of negations", expr: `templatefile("negations.tftpl", {})`, want: "nested deeper than"},
		{name: "replace of the empty string", expr: `replace(mb, "", mb)`, want: "would be larger than"},
		{name: "format width", expr: `format("%999999999d", 1)`, want: "width"},
		{name: "formatlist width", expr: `formatlist("%999999999s", ["a"])`, want: "width"},
		{name: "join", expr: `join(mb, [for i in range(1024): mb])`, want: "larger than 64 MiB"},
		{name: "join of a separator", expr: `join(mb, [for i in range(100): "x"])`, want: "would be larger than 64 MiB"},
		{name: "indent", expr: `indent(100000000, "a\nb")`, want: "would be larger than"},
		{name: "base64encode of a large value", expr: `base64encode(big_string)`, want: "larger than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := bounded.Run(t, bounded.Default, func() hcl.Diagnostics {
				_, diags := eval(t, dir, tt.expr, vars)
				return diags
			})
			require.True(t, diags.HasErrors(), "want an error diagnostic")
			assert.NotNil(t, diags[0].Subject, "the diagnostic points into the expression")
			assert.Contains(t, diags.Error(), tt.want)
		})
	}
}

// Aliases within reason keep working: anchors reused a few times are what YAML users write.
func TestYAMLAliasesWithinReason(t *testing.T) {
	src := "defaults: &d {a: 1, b: 2}\nx: *d\nz: *d\n"
	got, diags := eval(t, ".", `yamldecode(src).z.b`, map[string]cty.Value{"src": cty.StringVal(src)})
	require.False(t, diags.HasErrors(), diags.Error())
	assert.True(t, got.Equals(cty.NumberIntVal(2)).True(), "%#v", got)

	deepOK := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	for _, fn := range []string{"jsondecode", "yamldecode"} {
		_, diags := eval(t, ".", fmt.Sprintf(`%s(src)`, fn), map[string]cty.Value{"src": cty.StringVal(deepOK)})
		assert.False(t, diags.HasErrors(), "%s: %s", fn, diags.Error())
	}
}

// In confined mode file() and templatefile() read only inside the landscape directory; the
// diagnostic is at the argument.
func TestConfinedFileFunctions(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "landscape")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret"), []byte("s3cr3t"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("ok"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reads-out.tftpl"), []byte(`${file("../secret")}`), 0o600))
	require.NoError(t, os.Symlink("../secret", filepath.Join(dir, "link")))
	table := Table(landscapefs.New(dir, landscapefs.Policy{Confined: true}))
	evalConfined := func(src string) (cty.Value, hcl.Diagnostics) {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
		require.False(t, diags.HasErrors())
		return expr.Value(&hcl.EvalContext{Functions: table})
	}
	got, diags := evalConfined(`file("ok.txt")`)
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Equal(t, "ok", got.AsString())

	for src, want := range map[string]string{
		`file("/etc/passwd")`:                  "/etc/passwd is an absolute path",
		`file("../secret")`:                    "../secret leaves the landscape directory",
		`file("link")`:                         "link is a symbolic link to " + filepath.Join(parent, "secret"),
		`templatefile("../secret", {})`:        "leaves the landscape directory",
		`templatefile("reads-out.tftpl", {})`:  "../secret leaves the landscape directory",
		`can(file("/etc/passwd")) ? "x" : "y"`: "",
	} {
		got, diags := evalConfined(src)
		if want == "" {
			require.False(t, diags.HasErrors(), diags.Error())
			assert.Equal(t, "y", got.AsString(), "can() sees the refusal")
			continue
		}
		require.True(t, diags.HasErrors(), src)
		assert.Contains(t, []string{"Invalid function argument", "Error in function call"}, diags[0].Summary, src)
		assert.NotNil(t, diags[0].Subject, src)
		assert.Contains(t, diags.Error(), want, src)
		assert.Contains(t, diags.Error(), "confined mode reads only inside the landscape directory", src)
		assert.NotContains(t, diags.Error(), "s3cr3t")
	}
}
