package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docCommand is one `gardener ...` command found in the documentation or in a command's Example.
type docCommand struct {
	// source says where it was found: file:line, or "gardener plan: Example".
	source string
	// group is shared by the commands of one code block or Example, which run in one working
	// directory in order (a plan saved by one is shown by the next).
	group string
	// exact is true for commands in code blocks and Examples, which must be complete; false for
	// mentions in prose and headings, which may leave out positional arguments.
	exact bool
	// env holds the NAME=VALUE assignments written before the command.
	env []string
	// words are the command's words after "gardener", unexpanded (see expand).
	words []word
	// stdoutFile is the file a `> FILE` redirection names, empty without one.
	stdoutFile string
	// output is the output a transcript (`$ gardener ...` followed by lines) shows.
	output []string
	// jq holds the arguments of a `| jq ...` the command's output is piped into, nil without one.
	jq []string
}

// text is the command as the documentation writes it, for messages and the tables.
func (c docCommand) text() string {
	parts := []string{"gardener"}
	for _, w := range c.words {
		parts = append(parts, strings.Join(w.alts, "|"))
	}
	return strings.Join(parts, " ")
}

// word is one shell word of a command; a synopsis word like `text|dot|mermaid` has several
// alternatives.
type word struct {
	alts []string
}

var (
	fenceLine   = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_-]*)")
	headingLine = regexp.MustCompile(`^#+\s+(gardener\s.*)$`)
	envAssign   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// isGardener says whether a shell word runs gardener.
func isGardener(w string) bool {
	return w == "gardener" || w == "bin/gardener" || w == "./bin/gardener"
}

// extractMarkdown finds the gardener commands of one Markdown file: every command line of a
// fenced code block (in sh, bash, shell and console blocks every line; in text and unlabelled
// blocks, which mostly show output, only `$ ` lines), every inline code span and every heading
// that starts with `gardener `.
func extractMarkdown(path, display string) ([]docCommand, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var out []docCommand
	inFence, shellFence := false, false
	fenceStart := 0
	var transcript *docCommand
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			if !inFence {
				inFence, fenceStart = true, i+1
				switch m[2] {
				case "sh", "bash", "shell", "console":
					shellFence = true
				default:
					shellFence = false
				}
			} else {
				inFence = false
				transcript = nil
			}
			continue
		}
		source := fmt.Sprintf("%s:%d", display, i+1)
		if inFence {
			group := fmt.Sprintf("%s:%d", display, fenceStart)
			text := line
			for strings.HasSuffix(strings.TrimRight(text, " "), "\\") && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(strings.TrimRight(text, " "), "\\") + " " + strings.TrimSpace(lines[i])
			}
			trimmed := strings.TrimSpace(text)
			prompt := strings.HasPrefix(trimmed, "$ ")
			if !shellFence && !prompt {
				if transcript != nil {
					transcript.output = append(transcript.output, strings.TrimRight(text, " "))
				}
				continue
			}
			cmds, err := parseShellLine(strings.TrimPrefix(trimmed, "$ "), source, group, true)
			if err != nil {
				return nil, err
			}
			out = append(out, cmds...)
			transcript = nil
			if prompt && len(cmds) > 0 {
				transcript = &out[len(out)-1]
			}
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			// "gardener status, gardener approve PLAN_HASH" names two commands.
			for _, part := range strings.Split(m[1], ", ") {
				cmds, err := parseShellLine(strings.TrimSpace(part), source, source, false)
				if err != nil {
					return nil, err
				}
				out = append(out, cmds...)
			}
			continue
		}
		for _, span := range inlineCode(line) {
			span = strings.ReplaceAll(span, `\|`, "|") // a | escaped in a table cell
			fields := strings.Fields(span)
			if len(fields) < 2 || !isGardener(fields[0]) || !regexp.MustCompile(`^[a-z-]+$`).MatchString(fields[1]) {
				continue
			}
			cmds, err := parseShellLine(span, source, source, false)
			if err != nil {
				return nil, err
			}
			out = append(out, cmds...)
		}
	}
	return out, nil
}

// inlineCode returns the contents of the line's single-backtick code spans.
func inlineCode(line string) []string {
	var spans []string
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts)-1; i += 2 {
		spans = append(spans, parts[i])
	}
	return spans
}

// extractExamples finds the gardener commands of the Example of every command of root's tree.
func extractExamples(root *cobra.Command) ([]docCommand, error) {
	var out []docCommand
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		for i, line := range strings.Split(c.Example, "\n") {
			trimmed := strings.TrimSpace(line)
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			source := fmt.Sprintf("%s: Example line %d", c.CommandPath(), i+1)
			cmds, err := parseShellLine(trimmed, source, c.CommandPath()+": Example", true)
			if err != nil {
				return err
			}
			out = append(out, cmds...)
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root)
}

// markdownFiles are the documents whose commands are tested: the README and every Markdown file
// under docs/, relative to the repository root.
func markdownFiles(repo string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repo, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(repo, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files[1:])
	return files, err
}

// shellToken is a word of a shell line with, per rune, whether it was quoted.
type shellToken struct {
	runes  []rune
	quoted []bool
}

func (t shellToken) String() string { return string(t.runes) }

// tokenize splits a shell line into words, honouring single and double quotes (which it
// removes) and dropping a comment (an unquoted # that starts a word).
func tokenize(line string) ([]shellToken, error) {
	var tokens []shellToken
	var cur shellToken
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			tokens = append(tokens, cur)
		}
		cur, inWord = shellToken{}, false
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			cur.runes, cur.quoted = append(cur.runes, r), append(cur.quoted, true)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			flush()
			return tokens, nil
		default:
			cur.runes, cur.quoted, inWord = append(cur.runes, r), append(cur.quoted, false), true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	flush()
	return tokens, nil
}

// isOperator says whether an unquoted token separates commands (or pipes one into another).
func isOperator(t shellToken) bool {
	if len(t.runes) == 0 || t.quoted[0] {
		return false
	}
	switch t.String() {
	case "|", "&&", "||", ";":
		return true
	}
	return false
}

// parseShellLine returns the gardener commands of one shell line: the line is split at pipes,
// &&, || and ;, and every part whose first word (after NAME=VALUE assignments) runs gardener is
// a command. Other programs (jq, head, dot, kubectl, make) are not run.
func parseShellLine(line, source, group string, exact bool) ([]docCommand, error) {
	// A trailing ";" glued to a word ("--out plan.bin; status=$?") separates commands too.
	line = regexp.MustCompile(`;(\s|$)`).ReplaceAllString(line, " ; ")
	tokens, err := tokenize(line)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var out []docCommand
	var segment []shellToken
	end := func() {
		defer func() { segment = nil }()
		i := 0
		var env []string
		for i < len(segment) && envAssign.MatchString(segment[i].String()) {
			env = append(env, segment[i].String())
			i++
		}
		if i >= len(segment) || !isGardener(segment[i].String()) {
			return
		}
		c := docCommand{source: source, group: group, exact: exact, env: env}
		depth := 0
		rest := segment[i+1:]
		for j := 0; j < len(rest); j++ {
			t := rest[j]
			if !t.quoted[0] && (t.String() == ">" || t.String() == "1>") && j+1 < len(rest) {
				c.stdoutFile = rest[j+1].String()
				j++
				continue
			}
			w, keep := synopsisWord(t, &depth)
			if keep {
				c.words = append(c.words, w)
			}
		}
		out = append(out, c)
	}
	// flush ends a segment; a jq that a gardener command pipes into keeps its words on it.
	piped := false
	flush := func() bool {
		if piped && len(segment) > 0 && segment[0].String() == "jq" {
			for _, w := range segment[1:] {
				out[len(out)-1].jq = append(out[len(out)-1].jq, w.String())
			}
		}
		n := len(out)
		end()
		return len(out) > n
	}
	for _, t := range tokens {
		if isOperator(t) {
			added := flush()
			piped = t.String() == "|" && added
			continue
		}
		segment = append(segment, t)
	}
	flush()
	return out, nil
}

// synopsisWord reads the synopsis notation of one word: `[` and `]` around optional parts
// (their content is kept: the command runs with every option), a trailing `...` (repeatable),
// and unquoted `a|b` alternatives. `[flags]` stands for any flags and is dropped.
func synopsisWord(t shellToken, depth *int) (word, bool) {
	runes, quoted := t.runes, t.quoted
	bracketed := false
	for len(runes) > 0 && !quoted[0] && runes[0] == '[' {
		runes, quoted = runes[1:], quoted[1:]
		*depth++
		bracketed = true
	}
	trimDots := func() {
		n := len(runes)
		if n >= 3 && !quoted[n-1] && string(runes[n-3:]) == "..." && n > 3 {
			runes, quoted = runes[:n-3], quoted[:n-3]
		}
	}
	trimDots()
	for *depth > 0 && len(runes) > 0 && !quoted[len(runes)-1] && runes[len(runes)-1] == ']' {
		runes, quoted = runes[:len(runes)-1], quoted[:len(runes)-1]
		*depth--
	}
	trimDots()
	if bracketed && string(runes) == "flags" {
		return word{}, false
	}
	var alts []string
	var cur []rune
	for i, r := range runes {
		if r == '|' && !quoted[i] {
			alts, cur = append(alts, string(cur)), nil
			continue
		}
		cur = append(cur, r)
	}
	alts = append(alts, string(cur))
	return word{alts: alts}, true
}

// expand returns every combination of the alternatives of words.
func expand(words []word) [][]string {
	out := [][]string{nil}
	for _, w := range words {
		var next [][]string
		for _, prefix := range out {
			for _, alt := range w.alts {
				next = append(next, append(append([]string(nil), prefix...), alt))
			}
		}
		out = next
	}
	return out
}

// The documentation's notation is read as the test's doc comment says: pipelines and && split,
// quotes removed, comments dropped, synopses expanded.
func TestDocumentedCommandNotation(t *testing.T) {
	tests := []struct {
		line     string
		want     [][]string
		env      []string
		stdout   string
		jq       []string
		notFound bool
	}{
		{line: "gardener plan landscapes/local --json | jq '.summary'", want: [][]string{{"plan", "landscapes/local", "--json"}}, jq: []string{".summary"}},
		{line: "make build && bin/gardener validate landscapes/local   # check it", want: [][]string{{"validate", "landscapes/local"}}},
		{line: "gardener show --json plan.bin > plan.json   # attach", want: [][]string{{"show", "--json", "plan.bin"}}, stdout: "plan.json"},
		{line: "gardener plan DIR --out plan.bin; status=$?", want: [][]string{{"plan", "DIR", "--out", "plan.bin"}}},
		{line: "GARDENER_VAR_x=1 gardener validate DIR", want: [][]string{{"validate", "DIR"}}, env: []string{"GARDENER_VAR_x=1"}},
		{line: `gardener state rm DIR 'shoot.dev["a"]' --dry-run`, want: [][]string{{"state", "rm", "DIR", `shoot.dev["a"]`, "--dry-run"}}},
		{line: "gardener validate DIR [--json] [--var NAME=VALUE]... [--var-file FILE]...", want: [][]string{{"validate", "DIR", "--json", "--var", "NAME=VALUE", "--var-file", "FILE"}}},
		{line: "gardener graph DIR [--format text|dot] [--var ...]", want: [][]string{{"graph", "DIR", "--format", "text", "--var", "..."}, {"graph", "DIR", "--format", "dot", "--var", "..."}}},
		{line: "gardener state rm DIR ADDRESS... [flags]", want: [][]string{{"state", "rm", "DIR", "ADDRESS"}}},
		{line: "kubectl apply --server-side -f D", notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			cmds, err := parseShellLine(tt.line, "x", "x", true)
			require.NoError(t, err)
			if tt.notFound {
				assert.Empty(t, cmds)
				return
			}
			require.Len(t, cmds, 1)
			assert.Equal(t, tt.want, expand(cmds[0].words))
			assert.Equal(t, tt.env, cmds[0].env)
			assert.Equal(t, tt.stdout, cmds[0].stdoutFile)
			assert.Equal(t, tt.jq, cmds[0].jq)
		})
	}
}

// Markdown: shell blocks are commands, other blocks only where a $ prompt says so (with their
// output), inline spans and headings are synopses.
func TestDocumentedCommandsOfMarkdown(t *testing.T) {
	doc := "# Doc\n\n## gardener status, gardener approve HASH\n\nRun `gardener plan --at TIME` or `gardener-apiserver`.\n\n" +
		"```sh\ngardener plan DIR \\\n  --offline\n```\n\n```text\ngardener will perform the following actions\n```\n\n" +
		"```text\n$ gardener validate DIR\nError: bad\n```\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
	cmds, err := extractMarkdown(path, "doc.md")
	require.NoError(t, err)
	var got []string
	for _, c := range cmds {
		got = append(got, fmt.Sprintf("%s %v %s %q", c.source, c.exact, c.text(), c.output))
	}
	assert.Equal(t, []string{
		`doc.md:3 false gardener status []`,
		`doc.md:3 false gardener approve HASH []`,
		`doc.md:5 false gardener plan --at TIME []`,
		`doc.md:8 true gardener plan DIR --offline []`,
		`doc.md:17 true gardener validate DIR ["Error: bad"]`,
	}, got)
}
