// Package diag renders HCL diagnostics for people, in the shape Terraform users know (severity and
// summary, the file, line and enclosing block, the source lines with the range marked, then the
// detail), and for machines as JSON with exact ranges and a snippet. Rendering is deterministic:
// the same diagnostics and sources give the same bytes. The text form escapes what it quotes
// (internal/termsafe): a summary or detail can carry an API server's message or a value of a
// live object, and a source line a control character planted in a landscape under review, none
// of which may control the terminal.
package diag

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcled"
	"github.com/mitchellh/go-wordwrap"

	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// Files maps a file name, as used in diagnostic ranges, to the parsed file; hcl.Parser.Files()
// returns exactly this. Diagnostics whose file is missing are rendered without a snippet.
type Files map[string]*hcl.File

// TextOptions tune the text form.
type TextOptions struct {
	// Color adds ANSI colour to the severity; callers enable it only on a terminal without NO_COLOR.
	Color bool
	// Width wraps the detail paragraphs; 0 means 78.
	Width uint
}

// maxSnippetLines bounds how many source lines one diagnostic shows.
const maxSnippetLines = 6

// WriteText writes every diagnostic, errors and warnings in the order given.
func WriteText(w io.Writer, diags hcl.Diagnostics, files Files, opts TextOptions) error {
	if opts.Width == 0 {
		opts.Width = 78
	}
	bw := bufio.NewWriter(w)
	for _, d := range diags {
		writeOne(bw, d, files, opts)
	}
	return bw.Flush()
}

func writeOne(w *bufio.Writer, d *hcl.Diagnostic, files Files, opts TextOptions) {
	label, color := "Error", "\x1b[1;31m"
	if d.Severity == hcl.DiagWarning {
		label, color = "Warning", "\x1b[1;33m"
	}
	summary := termsafe.Escape(d.Summary)
	if opts.Color {
		fmt.Fprintf(w, "%s%s:\x1b[0m \x1b[1m%s\x1b[0m\n", color, label, summary)
	} else {
		fmt.Fprintf(w, "%s: %s\n", label, summary)
	}
	if d.Subject != nil {
		w.WriteString("\n")
		writeSnippet(w, d, files)
	}
	if d.Detail != "" {
		w.WriteString("\n")
		for _, para := range strings.Split(termsafe.Text(d.Detail), "\n") {
			w.WriteString(wordwrap.WrapString(para, opts.Width))
			w.WriteString("\n")
		}
	}
	w.WriteString("\n")
}

// writeSnippet writes "  on FILE line N, in BLOCK:" and the lines of the context (or subject)
// range, marking the subject range under each line with carets.
func writeSnippet(w *bufio.Writer, d *hcl.Diagnostic, files Files) {
	subject := *d.Subject
	file := files[subject.Filename]
	where := fmt.Sprintf("  on %s line %d", termsafe.Escape(subject.Filename), subject.Start.Line)
	if file != nil {
		if block := hcled.ContextString(file, subject.Start.Byte); block != "" {
			where += ", in " + termsafe.Escape(block)
		}
	}
	w.WriteString(where + ":\n")
	if file == nil || len(file.Bytes) == 0 {
		return
	}
	show := subject
	if d.Context != nil && d.Context.Filename == subject.Filename {
		show = hcl.RangeOver(*d.Context, subject)
	}
	lines := sourceLines(file.Bytes)
	first, last := show.Start.Line, show.End.Line
	// A range that ends at column 1 ends on the previous line's newline.
	if last > first && show.End.Column == 1 {
		last--
	}
	if last-first+1 > maxSnippetLines {
		last = first + maxSnippetLines - 1
	}
	numberWidth := len(fmt.Sprint(last))
	for n := first; n <= last && n <= len(lines); n++ {
		line := lines[n-1]
		fmt.Fprintf(w, "  %*d: %s\n", numberWidth, n, termsafe.Text(line))
		if marks := markLine(line, n, subject); marks != "" {
			fmt.Fprintf(w, "  %*s  %s\n", numberWidth, "", marks)
		}
	}
}

// markLine returns carets under the part of line n that subject covers, or "" if none. Columns
// are counted in characters of the original line, tabs included; the line is printed escaped
// (termsafe.Text), so each character takes as many places as its escape, and the carets line up
// under what is shown.
func markLine(line string, n int, subject hcl.Range) string {
	if n < subject.Start.Line || n > subject.End.Line {
		return ""
	}
	shown := shownCharacters(line)
	start, end := 0, len(shown)
	if n == subject.Start.Line {
		start = subject.Start.Column - 1
	}
	if n == subject.End.Line {
		end = subject.End.Column - 1
	}
	start = clamp(start, 0, len(shown))
	end = clamp(end, start, len(shown))
	var b strings.Builder
	for _, c := range shown[:start] {
		if c == "\t" {
			b.WriteByte('\t')
		} else {
			b.WriteString(strings.Repeat(" ", utf8.RuneCountInString(c)))
		}
	}
	carets := 0
	for _, c := range shown[start:end] {
		carets += utf8.RuneCountInString(c)
	}
	// An empty range (end of file, a missing token) still gets one caret where it points.
	b.WriteString(strings.Repeat("^", max(1, carets)))
	return b.String()
}

// shownCharacters splits line into its characters (a byte that is not UTF-8 counts as one) as
// the snippet prints them.
func shownCharacters(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		_, size := utf8.DecodeRuneInString(line[i:])
		out = append(out, termsafe.Text(line[i:i+size]))
		i += size
	}
	return out
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// sourceLines splits a file into lines without their line endings.
func sourceLines(src []byte) []string {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	return strings.Split(text, "\n")
}

// Pos is a position in a file: 1-based line and column, 0-based byte offset.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// Range is a span of a file.
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Snippet is the source around a diagnostic, for tools that show it without reading the file.
type Snippet struct {
	// Context names the enclosing block, e.g. `garden "local"`, or is empty at top level.
	Context string `json:"context"`
	// Code holds the lines the range spans.
	Code string `json:"code"`
	// StartLine is the line number of the first line of Code.
	StartLine int `json:"start_line"`
	// HighlightStartOffset and HighlightEndOffset delimit the range within Code, in bytes.
	HighlightStartOffset int `json:"highlight_start_offset"`
	HighlightEndOffset   int `json:"highlight_end_offset"`
}

// Diagnostic is the JSON form of one diagnostic.
type Diagnostic struct {
	Severity string   `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail,omitempty"`
	Range    *Range   `json:"range,omitempty"`
	Snippet  *Snippet `json:"snippet,omitempty"`
}

// ToJSON converts diagnostics to their JSON form, in the order given.
func ToJSON(diags hcl.Diagnostics, files Files) []Diagnostic {
	out := make([]Diagnostic, 0, len(diags))
	for _, d := range diags {
		j := Diagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			j.Severity = "warning"
		}
		if d.Subject != nil {
			r := *d.Subject
			j.Range = &Range{
				Filename: r.Filename,
				Start:    Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:      Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
			}
			j.Snippet = snippet(r, files[r.Filename])
		}
		out = append(out, j)
	}
	return out
}

func snippet(r hcl.Range, file *hcl.File) *Snippet {
	if file == nil || r.Start.Byte > len(file.Bytes) || r.End.Byte > len(file.Bytes) || r.Start.Byte > r.End.Byte {
		return nil
	}
	src := file.Bytes
	lineStart := bytes.LastIndexByte(src[:r.Start.Byte], '\n') + 1
	lineEnd := len(src)
	if i := bytes.IndexByte(src[r.End.Byte:], '\n'); i >= 0 {
		lineEnd = r.End.Byte + i
	}
	return &Snippet{
		Context:              hcled.ContextString(file, r.Start.Byte),
		Code:                 strings.TrimSuffix(string(src[lineStart:lineEnd]), "\r"),
		StartLine:            r.Start.Line,
		HighlightStartOffset: r.Start.Byte - lineStart,
		HighlightEndOffset:   r.End.Byte - lineStart,
	}
}
