package funcs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

// eval parses and evaluates src the way landscape expressions are evaluated, so every test
// also proves the function's name in the table.
func eval(t *testing.T, baseDir, src string, vars map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	require.False(t, diags.HasErrors(), "parse %s: %s", src, diags.Error())
	if vars == nil {
		vars = map[string]cty.Value{}
	}
	return expr.Value(&hcl.EvalContext{Variables: vars, Functions: Table(landscapefs.New(baseDir, landscapefs.Policy{}))})
}

func TestFunctions(t *testing.T) {
	abs, err := filepath.Abs("testdata/hello.txt")
	require.NoError(t, err)

	tests := []struct {
		name string
		dir  string // base directory; "." unless set
		expr string
		want cty.Value
	}{
		// cidr
		{name: "cidrsubnet ipv4", expr: `cidrsubnet("10.0.0.0/16", 8, 2)`, want: cty.StringVal("10.0.2.0/24")},
		{name: "cidrsubnet ipv4 host bits set", expr: `cidrsubnet("10.0.3.7/16", 4, 15)`, want: cty.StringVal("10.0.240.0/20")},
		{name: "cidrsubnet zero newbits", expr: `cidrsubnet("10.1.0.0/16", 0, 0)`, want: cty.StringVal("10.1.0.0/16")},
		{name: "cidrsubnet ipv4 to /32", expr: `cidrsubnet("192.168.0.0/24", 8, 255)`, want: cty.StringVal("192.168.0.255/32")},
		{name: "cidrsubnet ipv6", expr: `cidrsubnet("fd00:fd12:3456:7890::/56", 8, 1)`, want: cty.StringVal("fd00:fd12:3456:7801::/64")},
		{name: "cidrsubnet ipv6 large netnum", expr: `cidrsubnet("2001:db8::/32", 64, 18446744073709551615)`, want: cty.StringVal("2001:db8:ffff:ffff:ffff:ffff::/96")},
		{name: "cidrhost ipv4", expr: `cidrhost("10.0.0.0/24", 5)`, want: cty.StringVal("10.0.0.5")},
		{name: "cidrhost negative", expr: `cidrhost("10.0.0.0/24", -2)`, want: cty.StringVal("10.0.0.254")},
		{name: "cidrhost most negative", expr: `cidrhost("10.0.0.0/24", -256)`, want: cty.StringVal("10.0.0.0")},
		{name: "cidrhost ipv6", expr: `cidrhost("fd00:fd12:3456:7890::/64", 34)`, want: cty.StringVal("fd00:fd12:3456:7890::22")},
		{name: "cidrhost ipv6 negative", expr: `cidrhost("fd00::/64", -1)`, want: cty.StringVal("fd00::ffff:ffff:ffff:ffff")},
		{name: "cidrsubnet ipv4-mapped ipv6", expr: `cidrsubnet("::ffff:10.0.0.0/104", 8, 1)`, want: cty.StringVal("::ffff:10.1.0.0/112")},
		{name: "cidrhost ipv4-mapped ipv6", expr: `cidrhost("::ffff:10.0.0.0/104", 5)`, want: cty.StringVal("::ffff:10.0.0.5")},

		// encoding
		{name: "yamldecode", expr: `yamldecode("a: [1, 2]")`, want: cty.ObjectVal(map[string]cty.Value{
			"a": cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}),
		})},
		{name: "yamldecode explicit document start", expr: `yamldecode("---\nb: x\n")`, want: cty.ObjectVal(map[string]cty.Value{"b": cty.StringVal("x")})},
		{name: "yamlencode", expr: `yamlencode({a = 1})`, want: cty.StringVal("\"a\": 1\n")},
		{name: "json round trip", expr: `jsondecode(jsonencode({a = [1]}))`, want: cty.ObjectVal(map[string]cty.Value{
			"a": cty.TupleVal([]cty.Value{cty.NumberIntVal(1)}),
		})},
		{name: "base64encode", expr: `base64encode("hello")`, want: cty.StringVal("aGVsbG8=")},
		{name: "base64 round trip", expr: `base64decode(base64encode("x"))`, want: cty.StringVal("x")},
		{name: "sha256", expr: `sha256("abc")`, want: cty.StringVal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")},
		{name: "csvdecode", expr: `csvdecode("a,b\n1,2\n")[0].b`, want: cty.StringVal("2")},

		// files
		{name: "file", expr: `file("testdata/hello.txt")`, want: cty.StringVal("hello, file\n")},
		{name: "file relative to base dir", dir: "testdata", expr: `file("hello.txt")`, want: cty.StringVal("hello, file\n")},
		{name: "file absolute", dir: "testdata", expr: `file("` + filepath.ToSlash(abs) + `")`, want: cty.StringVal("hello, file\n")},
		{name: "templatefile", dir: "testdata", expr: `templatefile("t.tftpl", {name = "x"})`, want: cty.StringVal("hello x!\n01\n")},
		{name: "templatefile map vars", expr: `templatefile("testdata/t.tftpl", tomap({name = "y"}))`, want: cty.StringVal("hello y!\n01\n")},

		// stdlib under Terraform's names
		{name: "try falls back", expr: `try(tonumber("x"), 0)`, want: cty.NumberIntVal(0)},
		{name: "can", expr: `can(regex("a", "b"))`, want: cty.False},
		{name: "format", expr: `format("%s-%d", "a", 1)`, want: cty.StringVal("a-1")},
		{name: "replace plain", expr: `replace("a.b.c", ".", "-")`, want: cty.StringVal("a-b-c")},
		{name: "replace regex", expr: `replace("a1b22c", "/[0-9]+/", "-")`, want: cty.StringVal("a-b-c")},
		{name: "length list", expr: `length([1, 2, 3])`, want: cty.NumberIntVal(3)},
		{name: "length string", expr: `length("héllo")`, want: cty.NumberIntVal(5)},
		{name: "length object", expr: `length({a = 1, b = "x"})`, want: cty.NumberIntVal(2)},
		{name: "strrev", expr: `strrev("abc")`, want: cty.StringVal("cba")},
		{name: "reverse", expr: `reverse(tolist(["a", "b"]))`, want: cty.ListVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")})},
		{name: "formatdate", expr: `formatdate("YYYY-MM-DD", "2024-02-29T10:00:00Z")`, want: cty.StringVal("2024-02-29")},
		{name: "merge and keys", expr: `keys(merge({a = 1}, {b = 2}))`, want: cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		{name: "toset", expr: `length(toset(["a", "a", "b"]))`, want: cty.NumberIntVal(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = "."
			}
			got, diags := eval(t, dir, tt.expr, nil)
			require.False(t, diags.HasErrors(), diags.Error())
			assert.True(t, tt.want.RawEquals(got), "want %#v\n got %#v", tt.want, got)
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want []string // substrings of the diagnostics' text
	}{
		{name: "missing file", expr: `file("testdata/missing.txt")`, want: []string{"no file exists at testdata/missing.txt"}},
		{name: "directory", expr: `file("testdata")`, want: []string{"testdata is a directory, not a file"}},
		{name: "not utf-8", expr: `file("testdata/latin1.txt")`, want: []string{"contents of testdata/latin1.txt are not valid UTF-8"}},
		{name: "bad cidr", expr: `cidrsubnet("10.0.0/16", 8, 2)`, want: []string{`"10.0.0/16" is not a CIDR prefix`}},
		{name: "cidr without length", expr: `cidrhost("10.0.0.1", 1)`, want: []string{`"10.0.0.1" is not a CIDR prefix`}},
		{name: "newbits too large", expr: `cidrsubnet("10.0.0.0/16", 17, 0)`, want: []string{"cannot extend 10.0.0.0/16 by 17 bits", "only 16 of the address's 32 bits free"}},
		{name: "newbits too large ipv6", expr: `cidrsubnet("fd00::/64", 65, 0)`, want: []string{"cannot extend fd00::/64 by 65 bits"}},
		{name: "newbits negative", expr: `cidrsubnet("10.0.0.0/16", -1, 0)`, want: []string{"newbits must be a whole number between 0 and 16"}},
		{name: "netnum out of range", expr: `cidrsubnet("10.0.0.0/16", 8, 256)`, want: []string{"netnum 256 is out of range", "numbered 0 to 255"}},
		{name: "netnum negative", expr: `cidrsubnet("10.0.0.0/16", 8, -1)`, want: []string{"netnum -1 is out of range"}},
		{name: "netnum fractional", expr: `cidrsubnet("10.0.0.0/16", 8, 1.5)`, want: []string{"netnum must be a whole number"}},
		{name: "hostnum out of range", expr: `cidrhost("10.0.0.0/24", 256)`, want: []string{"hostnum 256 is out of range", "between -256 and 255"}},
		{name: "hostnum too negative", expr: `cidrhost("10.0.0.0/24", -257)`, want: []string{"hostnum -257 is out of range"}},
		{name: "invalid base64", expr: `base64decode("not base64!")`, want: []string{"invalid base64 data"}},
		{name: "base64 not utf-8", expr: `base64decode("/w==")`, want: []string{"not valid UTF-8"}},
		{name: "multi-document yaml", expr: `yamldecode("a: 1\n---\nb: 2\n")`, want: []string{"invalid YAML: the string holds 2 documents, but yamldecode decodes exactly one"}},
		{name: "yaml document after end marker", expr: `yamldecode("a: 1\n...\nb: 2\n")`, want: []string{"holds 2 documents"}},
		{name: "invalid yaml", expr: `yamldecode("a: [1")`, want: []string{"invalid YAML"}},
		{name: "unknown template variable", expr: `templatefile("testdata/unknown-var.tftpl", {name = "x"})`, want: []string{
			"testdata/unknown-var.tftpl:1,6", `no variable named "nme"`,
		}},
		{name: "template syntax error", expr: `templatefile("testdata/bad-syntax.tftpl", {name = "x"})`, want: []string{
			"cannot parse template", "testdata/bad-syntax.tftpl:1,",
		}},
		{name: "template cannot call templatefile", expr: `templatefile("testdata/recursive.tftpl", {})`, want: []string{
			"testdata/recursive.tftpl:1,3", `no function named "templatefile"`,
		}},
		{name: "template vars not an object", expr: `templatefile("testdata/t.tftpl", "x")`, want: []string{"vars must be an object or a map, not string"}},
		{name: "template variable name invalid", expr: `templatefile("testdata/t.tftpl", {"1x" = "y"})`, want: []string{`"1x" cannot be a template variable`}},
		{name: "missing template", expr: `templatefile("testdata/missing.tftpl", {})`, want: []string{"no file exists at testdata/missing.tftpl"}},
		{name: "length of number", expr: `length(1)`, want: []string{"argument must be a string, a collection or an object, not number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := eval(t, ".", tt.expr, nil)
			require.True(t, diags.HasErrors(), "want an error diagnostic")
			require.IsType(t, &hcl.Diagnostic{}, diags[0])
			assert.Equal(t, hcl.DiagError, diags[0].Severity)
			assert.NotNil(t, diags[0].Subject, "the diagnostic should point into the expression")
			for _, want := range tt.want {
				assert.Contains(t, diags.Error(), want)
			}
		})
	}
}

// TestArgumentErrorsPointAtArgument checks that an error about one argument is reported on that
// argument, so HCL underlines the culprit rather than the whole call.
func TestArgumentErrorsPointAtArgument(t *testing.T) {
	src := `cidrsubnet("10.0.0.0/16", 8, 999)`
	_, diags := eval(t, ".", src, nil)
	require.True(t, diags.HasErrors())
	assert.Equal(t, "Invalid function argument", diags[0].Summary)
	assert.Equal(t, strings.Index(src, "999"), diags[0].Subject.Start.Byte)
}

func TestSensitiveMarksPassThrough(t *testing.T) {
	vars := map[string]cty.Value{
		"secret": cty.StringVal("abc").Mark("sensitive"),
		"config": cty.ObjectVal(map[string]cty.Value{"password": cty.StringVal("hunter2").Mark("sensitive")}),
	}
	tests := []struct {
		name string
		expr string
		want string
	}{
		{name: "sha256", expr: `sha256(secret)`, want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{name: "base64encode", expr: `base64encode(secret)`, want: "YWJj"},
		{name: "yamlencode nested mark", expr: `yamlencode(config)`, want: "\"password\": \"hunter2\"\n"},
		{name: "templatefile", expr: `templatefile("testdata/t.tftpl", {name = secret})`, want: "hello abc!\n01\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := eval(t, ".", tt.expr, vars)
			require.False(t, diags.HasErrors(), diags.Error())
			assert.True(t, got.HasMark("sensitive"), "result lost the sensitive mark")
			unmarked, _ := got.Unmark()
			assert.Equal(t, tt.want, unmarked.AsString())
		})
	}
}

func TestUnknownArgumentsGiveUnknownResults(t *testing.T) {
	vars := map[string]cty.Value{
		"s":    cty.UnknownVal(cty.String),
		"n":    cty.UnknownVal(cty.Number),
		"any":  cty.DynamicVal,
		"vars": cty.ObjectVal(map[string]cty.Value{"name": cty.UnknownVal(cty.String)}),
	}
	tests := []struct {
		expr string
		want cty.Type
	}{
		{expr: `sha256(s)`, want: cty.String},
		{expr: `cidrsubnet("10.0.0.0/16", 8, n)`, want: cty.String},
		{expr: `cidrhost(s, 1)`, want: cty.String},
		{expr: `yamldecode(s)`, want: cty.DynamicPseudoType},
		{expr: `yamlencode(any)`, want: cty.String},
		{expr: `file(s)`, want: cty.String},
		{expr: `templatefile("testdata/t.tftpl", vars)`, want: cty.String},
		{expr: `length(s)`, want: cty.Number},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, diags := eval(t, ".", tt.expr, vars)
			require.False(t, diags.HasErrors(), diags.Error())
			assert.False(t, got.IsKnown(), "want unknown, got %#v", got)
			assert.Equal(t, tt.want, got.Type())
		})
	}
}

// TestTableIsPure guards determinism: rendering must not depend on the clock or randomness.
func TestTableIsPure(t *testing.T) {
	table := Table(landscapefs.New(".", landscapefs.Policy{}))
	for _, name := range []string{
		"timestamp", "plantimestamp", "timeadd", "uuid", "uuidv5", "bcrypt", "random", "rand", "shuffle", "now",
	} {
		assert.NotContains(t, table, name)
	}
}

func TestTableNames(t *testing.T) {
	want := []string{
		"abs", "ceil", "floor", "log", "max", "min", "parseint", "pow", "signum",
		"chomp", "format", "formatlist", "indent", "join", "lower", "regex", "regexall", "replace", "split",
		"strrev", "substr", "title", "trim", "trimprefix", "trimsuffix", "trimspace", "upper",
		"chunklist", "coalesce", "coalescelist", "compact", "concat", "contains", "distinct", "element",
		"flatten", "keys", "length", "lookup", "merge", "range", "reverse", "setintersection", "setproduct",
		"setsubtract", "setunion", "slice", "sort", "values", "zipmap",
		"csvdecode", "formatdate", "jsonencode", "jsondecode",
		"tostring", "tonumber", "tobool", "tolist", "toset", "tomap",
		"try", "can",
		"file", "templatefile", "yamldecode", "yamlencode", "base64encode", "base64decode",
		"cidrsubnet", "cidrhost", "sha256",
		"sensitive",
		// Not for landscapes to call: every for expression's collection passes through it
		// (limits.BoundForExpressions).
		"for",
	}
	var got []string
	for name := range Table(landscapefs.New(".", landscapefs.Policy{})) {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	assert.Equal(t, want, got)
}

// TestTemplateFileUsesBaseDir checks that templates and the files they read resolve against the
// landscape directory, not the process's working directory.
func TestTemplateFileUsesBaseDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inner.txt"), []byte("inner"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outer.tftpl"), []byte(`${upper(file("inner.txt"))}-${n}`), 0o600))
	got, diags := eval(t, dir, `templatefile("outer.tftpl", {n = 3})`, nil)
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Equal(t, cty.StringVal("INNER-3"), got)
}

func TestYAMLDocuments(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{src: "", want: 0},
		{src: "a: 1\n", want: 1},
		{src: "---\na: 1\n", want: 1},
		{src: "# comment\n---\na: 1\n...\n", want: 1},
		{src: "%YAML 1.2\n---\na: 1\n", want: 1},
		{src: "a: |\n  ---\n  text\n", want: 1},
		{src: "---- not a marker\n", want: 1},
		{src: "a: 1\n---\nb: 2\n", want: 2},
		{src: "--- a\n--- b\n--- c\n", want: 3},
		{src: "a: 1\r\n---\r\nb: 2\r\n", want: 2},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, yamlDocuments(tt.src), "%q", tt.src)
	}
}

// BenchmarkCIDR measures the network functions as a landscape with many shoots calls them: a
// subnet and an address of it per shoot.
func BenchmarkCIDR(b *testing.B) {
	subnet, host := cidrSubnetFunc, cidrHostFunc
	args4 := []cty.Value{cty.StringVal("10.0.0.0/8"), cty.NumberIntVal(8), cty.NumberIntVal(200)}
	args6 := []cty.Value{cty.StringVal("fd00:fd12:3456::/48"), cty.NumberIntVal(16), cty.NumberIntVal(4000)}
	b.ReportAllocs()
	for b.Loop() {
		for _, args := range [][]cty.Value{args4, args6} {
			s, err := subnet.Call(args)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := host.Call([]cty.Value{s, cty.NumberIntVal(-2)}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
