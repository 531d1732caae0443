package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
)

// hostile is what someone who names an object, writes a lock, a status field or an error message
// can put in it to take over the terminal: clear the screen, retitle the window (OSC ended by
// BEL), return to the start of the line to overwrite it, reverse what follows (bidi override), a
// C1 CSI.
const hostile = "\x1b[2J\x1b]0;owned\a\rforged\u202e\u009b31m"

// hostileShown is how gardener prints it.
const hostileShown = `\x1b[2J\x1b]0;owned\a\rforged\u202e\u009b31m`

// ownSequences are the escape sequences gardener writes itself: colours and the progress view's
// cursor movements.
var ownSequences = regexp.MustCompile(`\x1b\[(?:[0-9;]*m|[0-9]+A|2K)`)

// assertTerminalSafe fails when out holds a character a terminal would obey other than line
// breaks, tabs and gardener's own sequences.
func assertTerminalSafe(t *testing.T, out string) {
	t.Helper()
	for i, r := range ownSequences.ReplaceAllString(out, "") {
		if r != '\n' && r != '\t' && !unicode.IsGraphic(r) {
			t.Fatalf("raw %U at byte %d of %q", r, i, out)
		}
	}
}

// Everything the commands print themselves goes through printf or printLine (print.go): no other
// file of the package calls fmt's printing functions or writes to os.Stdout or os.Stderr.
func TestPrintingGoesThroughTermsafe(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "print.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case pkg.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"),
				pkg.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Fprint"):
				t.Errorf("%s: fmt.%s prints without escaping; use printf or printLine", fset.Position(sel.Pos()), sel.Sel.Name)
			case pkg.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") && !strings.HasPrefix(name, "main.go"):
				t.Errorf("%s: os.%s outside main.go; commands write to cmd.OutOrStdout() and cmd.ErrOrStderr()", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	assert.Greater(t, checked, 5)
}

func TestErrorsAreEscaped(t *testing.T) {
	var buf bytes.Buffer
	assert.Equal(t, 1, exitStatus(&buf, errors.New("apply incomplete:\n  webhook said "+hostile)))
	assertTerminalSafe(t, buf.String())
	assert.Equal(t, "Error: apply incomplete:\n  webhook said "+hostileShown+"\n", buf.String(), "the message's own line breaks stay")

	buf.Reset()
	assert.Equal(t, 2, exitStatus(&buf, exitCode(2)))
	assert.Empty(t, buf.String(), "a command that ends with an exit code has said why")
	assert.Equal(t, 0, exitStatus(&buf, nil))
}

// A lock planted by someone else names its holder in the error the command prints.
func TestStateRmNamesAPlantedLockHolderEscaped(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, sampleState())
	planted, err := json.Marshal(map[string]any{"id": "id" + hostile, "holder": "eve" + hostile + "\nApply complete!", "operation": "apply", "acquired": time.Now()})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state.DefaultLocalPath+".lock", planted, 0o600))

	_, errOut, err := runState(t, "", "state", "rm", ".", `shoot.dev["a"]`)
	assert.Equal(t, exitCode(1), err)
	assertTerminalSafe(t, errOut)
	assert.Contains(t, errOut, "state is locked by eve"+hostileShown+`\nApply complete! for apply`)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "the holder adds no line")
}

// The state file names addresses and outputs: whoever can edit it chooses them.
func TestStateCommandsEscapeWhatTheStateHolds(t *testing.T) {
	s := sampleState()
	addr := `component.manifests.x["` + hostile + "\nforged" + `"]`
	s.Components[addr] = &state.Component{Address: addr, Type: "manifests" + hostile,
		Outputs: map[string]any{"out" + hostile: hostile},
		Objects: []state.Object{{Cluster: "runtime" + hostile, Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "n" + hostile}}}
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, s)

	out, errOut, err := runState(t, "", "state", "list", ".")
	require.NoError(t, err, errOut)
	assertTerminalSafe(t, out)
	assert.Contains(t, out, `component.manifests.x["`+hostileShown+`\nforged"]`)
	assert.Equal(t, 3, strings.Count(out, "\n"), "one line per component: an address adds no line")

	out, errOut, err = runState(t, "", "state", "show", ".", addr)
	require.NoError(t, err, errOut)
	assertTerminalSafe(t, out)
	assert.Contains(t, out, `address:  component.manifests.x["`+hostileShown+`\nforged"]`)
	assert.Contains(t, out, "manifests"+hostileShown)
	assert.Contains(t, out, "runtime"+hostileShown)
	assert.Contains(t, out, "n"+hostileShown)

	_, errOut, err = runState(t, "", "state", "show", ".", "component.manifests.y"+hostile)
	assert.Equal(t, exitCode(1), err)
	assertTerminalSafe(t, errOut)
	assert.Contains(t, errOut, "component.manifests.y"+hostileShown+" is not in the state")
}

// A saved plan holds the names of live objects; show prints them through the plan view.
func TestShowEscapesNamesOfLiveObjects(t *testing.T) {
	ref := object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "name" + hostile}
	pl := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Components: []*plan.Component{
		{Address: "component.manifests.old", Type: "manifests", Objects: []*plan.ObjectChange{
			{Cluster: "runtime", APIVersion: "v1", Ref: ref, Action: plan.Delete, Reason: plan.Reason{Kind: plan.ReasonRemovedFromLandscape}},
		}},
	}, Warnings: []string{"warning" + hostile}}
	pl.Summarise()
	path := filepath.Join(t.TempDir(), "plan.bin")
	require.NoError(t, plan.WriteFile(path, &plan.File{FormatVersion: plan.FileFormatVersion, Dir: t.TempDir(), Plan: pl}))

	out, errOut, err := run(t, "show", path)
	require.NoError(t, err, errOut)
	assertTerminalSafe(t, out)
	assert.Contains(t, out, "  - ConfigMap apps/name"+hostileShown+" (runtime) will be destroyed")
	assert.Contains(t, out, "Warning: warning"+hostileShown)

	js, _, err := run(t, "show", "--json", path)
	require.NoError(t, err)
	assert.NotContains(t, js, "\x1b", "JSON escapes control characters itself")
	assert.Contains(t, js, `name\u001b[2J`)
}

// The lines a diagnostic quotes come from a landscape that may be under review.
func TestValidateEscapesQuotedSourceLines(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": "landscape \"l\" {}\ncluster \"runtime\" {\n  nope = 1 # " + strings.ReplaceAll(hostile, "\r", "") + "\n}\n"})
	_, errOut, err := run(t, "validate", ".")
	assert.Equal(t, exitCode(1), err)
	assertTerminalSafe(t, errOut)
	assert.Contains(t, errOut, `  nope = 1 # \x1b[2J\x1b]0;owned\aforged\u202e\u009b31m`)
}

// for_each keys become addresses, and a graph prints them.
func TestGraphEscapesAddresses(t *testing.T) {
	landscapeDir(t, map[string]string{"main.hcl": `landscape "v" {}
cluster "runtime" {}
component "manifests" "m" {
  for_each = toset(["a\u001b[2J\u001b]0;owned\u0007\r\u202e"])
  cluster  = cluster.runtime
  objects  = []
}
`})
	for _, format := range []string{"text", "dot", "mermaid", "html"} {
		out, errOut, err := runGraph(t, "--format", format, ".")
		require.NoError(t, err, errOut)
		assertTerminalSafe(t, out)
	}
	out, _, err := runGraph(t, ".")
	require.NoError(t, err)
	assert.Equal(t, `component.manifests.m["a\x1b[2J\x1b]0;owned\a\r\u202e"]`+"\n", out)
}

// The daemon's status ConfigMap is written by whoever may edit it, not only by the daemon.
func TestStatusEscapesItsFields(t *testing.T) {
	var out bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	printStatus(cmd, map[string]string{
		"landscape": "l" + hostile,
		"message":   "one" + hostile,
		"errors":    "first" + hostile + "\nsecond" + hostile + "\n",
	}, "hash"+hostile)
	assertTerminalSafe(t, out.String())
	assert.Equal(t, "landscape: l"+hostileShown+"\nmessage: one"+hostileShown+"\nerrors:\n  first"+hostileShown+"\n  second"+hostileShown+"\napproved: hash"+hostileShown+"\n", out.String())
}

// The progress view shows what apply reports, errors of API servers included.
func TestProgressOfApplyEscapesErrors(t *testing.T) {
	var out bytes.Buffer
	p := views.NewProgress(&out, false, false)
	reportEvent(p, apply.Event{Address: "component.manifests.x", Status: "failed", Err: errors.New("admission webhook denied: " + hostile)}, nil)
	p.Stop()
	assertTerminalSafe(t, out.String())
	assert.Contains(t, out.String(), "component.manifests.x: failed: admission webhook denied: "+strings.Replace(hostileShown, `\r`, " ", 1))
}
