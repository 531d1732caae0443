package diag

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), string(got))
}

// rangeOf finds the n-th (1-based) occurrence of text in a parsed file and returns its range.
func rangeOf(t *testing.T, file *hcl.File, name, text string) *hcl.Range {
	t.Helper()
	i := bytes.Index(file.Bytes, []byte(text))
	require.GreaterOrEqual(t, i, 0, text)
	start := posAt(file.Bytes, i)
	end := posAt(file.Bytes, i+len(text))
	return &hcl.Range{Filename: name, Start: start, End: end}
}

func posAt(src []byte, offset int) hcl.Pos {
	line := 1 + bytes.Count(src[:offset], []byte("\n"))
	col := offset - (bytes.LastIndexByte(src[:offset], '\n') + 1) + 1
	return hcl.Pos{Line: line, Column: col, Byte: offset}
}

func parse(t *testing.T) (Files, hcl.Diagnostics) {
	t.Helper()
	p := hclparse.NewParser()
	var diags hcl.Diagnostics
	for _, name := range []string{"landscape.hcl", "tabs.hcl", "syntax.hcl"} {
		_, d := p.ParseHCLFile(filepath.Join("testdata", name))
		diags = append(diags, d...)
	}
	return Files(p.Files()), diags
}

func sample(t *testing.T) (Files, hcl.Diagnostics) {
	files, diags := parse(t)
	require.Len(t, diags, 1, "testdata/syntax.hcl has exactly one syntax error")
	land := files["testdata/landscape.hcl"]
	tabs := files["testdata/tabs.hcl"]
	list := rangeOf(t, land, "testdata/landscape.hcl", `["virtual-garden.local",
      42]`)
	diags = append(diags,
		&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported argument",
			Detail:   `An argument named "foo" is not expected here. Did you mean "for_each"?`,
			Subject:  rangeOf(t, land, "testdata/landscape.hcl", "foo"),
		},
		&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Incorrect attribute value type",
			Detail:   "Inappropriate value for attribute \"dns_domains\": element 1: string required. A very long detail line is wrapped at the configured width so that it stays readable in a terminal.\nA second paragraph stays separate.",
			Subject:  rangeOf(t, land, "testdata/landscape.hcl", "42"),
			Context:  list,
		},
		&hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Deprecated attribute",
			Detail:   "The attribute \"description\" is deprecated.",
			Subject:  rangeOf(t, land, "testdata/landscape.hcl", `description = "diagnostics test"`),
		},
		&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Incorrect attribute value type",
			Subject:  rangeOf(t, tabs, "testdata/tabs.hcl", "1"),
		},
		&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unreadable file",
			Detail:   "The file could not be read.",
			Subject:  &hcl.Range{Filename: "testdata/missing.hcl", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 1}},
		},
		&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No landscape files", Detail: "The directory holds no *.hcl files."},
	)
	return files, diags
}

func TestWriteTextGolden(t *testing.T) {
	files, diags := sample(t)
	var out bytes.Buffer
	require.NoError(t, WriteText(&out, diags, files, TextOptions{}))
	golden(t, "diagnostics.txt.golden", out.Bytes())

	var again bytes.Buffer
	require.NoError(t, WriteText(&again, diags, files, TextOptions{}))
	assert.Equal(t, out.String(), again.String(), "rendering is deterministic")
}

func TestWriteTextColor(t *testing.T) {
	files, diags := sample(t)
	var plain, colored bytes.Buffer
	require.NoError(t, WriteText(&plain, diags[:1], files, TextOptions{}))
	require.NoError(t, WriteText(&colored, diags[:1], files, TextOptions{Color: true}))
	assert.NotContains(t, plain.String(), "\x1b[")
	assert.Contains(t, colored.String(), "\x1b[1;31mError:\x1b[0m")
}

func TestToJSONGolden(t *testing.T) {
	files, diags := sample(t)
	out, err := json.MarshalIndent(ToJSON(diags, files), "", "  ")
	require.NoError(t, err)
	golden(t, "diagnostics.json.golden", append(out, '\n'))
}

func TestToJSONSnippetHighlightsTheRange(t *testing.T) {
	files, diags := sample(t)
	got := ToJSON(diags, files)
	foo := got[1]
	require.NotNil(t, foo.Snippet)
	assert.Equal(t, `garden "local"`, foo.Snippet.Context)
	assert.Equal(t, "foo", foo.Snippet.Code[foo.Snippet.HighlightStartOffset:foo.Snippet.HighlightEndOffset])
	assert.Equal(t, 7, foo.Range.Start.Line)
	assert.Nil(t, got[5].Snippet, "no snippet for a file that was never read")
	assert.Nil(t, got[6].Range, "a diagnostic without a subject has no range")
}

func TestMarkLine(t *testing.T) {
	r := hcl.Range{Start: hcl.Pos{Line: 2, Column: 3}, End: hcl.Pos{Line: 3, Column: 4}}
	tests := []struct {
		name string
		line string
		n    int
		want string
	}{
		{"before the range", "abc", 1, ""},
		{"first line runs to its end", "abcdef", 2, "  ^^^^"},
		{"last line starts at column 1", "abcdef", 3, "^^^"},
		{"tabs are kept so carets line up", "\t\tx = 1", 2, "\t\t^^^^^"},
		{"empty range gets one caret", "ab", 4, ""},
		{"an escaped character before the range takes the width of its escape", "a\x1bbcdef", 2, "     ^^^^^"},
		{"an escaped character in the range gets a caret per character of its escape", "\x1bxyz", 3, "^^^^^^"},
		{"a byte that is not UTF-8 is one character shown as four", "\xffxyz", 3, "^^^^^^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, markLine(tt.line, tt.n, r))
		})
	}
	empty := hcl.Range{Start: hcl.Pos{Line: 1, Column: 3}, End: hcl.Pos{Line: 1, Column: 3}}
	assert.Equal(t, "  ^", markLine("ab", 1, empty))
}

// hostile clears the screen, retitles the window, returns to the start of the line and reverses
// the text that follows, as a landscape under review or an API server's message may try.
const hostile = "\x1b[2J\x1b]0;owned\a\r\u202e"

// A diagnostic quotes its source line, summary, detail, file and block: each is shown escaped,
// and the carets still point at the subject.
func TestWriteTextEscapesWhatItQuotes(t *testing.T) {
	name := "evil" + hostile + ".hcl"
	// HCL reads a carriage return as a line break: the source has the rest.
	inSource := strings.ReplaceAll(hostile, "\r", "")
	src := "garden \"g" + inSource + "\" {\n  name = 42 # " + inSource + "\n  foo  = \"" + inSource + "\" # x\n}\n"
	file, diags := hclparse.NewParser().ParseHCL([]byte(src), name)
	require.False(t, diags.HasErrors(), diags.Error())
	foo := bytes.Index(file.Bytes, []byte("foo"))
	x := bytes.LastIndex(file.Bytes, []byte("x"))
	diags = hcl.Diagnostics{
		{
			Severity: hcl.DiagError, Summary: "Rejected by the API server" + hostile,
			Detail:  "admission webhook said: " + hostile + "\nsecond paragraph" + hostile,
			Subject: &hcl.Range{Filename: name, Start: charPosAt(file.Bytes, foo), End: charPosAt(file.Bytes, foo+3)},
			Context: &hcl.Range{Filename: name, Start: charPosAt(file.Bytes, 0), End: charPosAt(file.Bytes, len(file.Bytes))},
		},
		{
			Severity: hcl.DiagWarning, Summary: "after the escapes",
			Subject: &hcl.Range{Filename: name, Start: charPosAt(file.Bytes, x), End: charPosAt(file.Bytes, x+1)},
		},
	}
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		require.NoError(t, WriteText(&out, diags, Files{name: file}, TextOptions{Color: color}))
		text := out.String()
		own := regexp.MustCompile(`\x1b\[[0-9;]*m`)
		for _, r := range own.ReplaceAllString(text, "") {
			if r != '\n' && !unicode.IsGraphic(r) {
				t.Fatalf("raw %U in %q", r, text)
			}
		}
		shown, shownInSource := `\x1b[2J\x1b]0;owned\a\r\u202e`, `\x1b[2J\x1b]0;owned\a\u202e`
		assert.Contains(t, text, "Rejected by the API server"+shown)
		assert.Contains(t, text, "admission webhook said: "+shown+"\nsecond paragraph"+shown+"\n")
		assert.Contains(t, text, `  on evil`+shown+`.hcl line 3, in garden "g`+shownInSource+`":`)
		shown = shownInSource
		assert.Contains(t, text, "  2:   name = 42 # "+shown+"\n")
		assert.Contains(t, text, "  3:   foo  = \""+shown+"\" # x\n       ^^^\n")
		// The caret of the second diagnostic stands under the x, after the escaped text.
		assert.Contains(t, text, "  3:   foo  = \""+shown+"\" # x\n"+strings.Repeat(" ", len(`  3: `)+len(`  foo  = "`+shown+`" # `))+"^\n")
	}
}

// charPosAt is the position of a byte offset with the column in characters, as HCL counts them.
func charPosAt(src []byte, offset int) hcl.Pos {
	lineStart := bytes.LastIndexByte(src[:offset], '\n') + 1
	return hcl.Pos{Line: 1 + bytes.Count(src[:offset], []byte("\n")), Column: utf8.RuneCount(src[lineStart:offset]) + 1, Byte: offset}
}
