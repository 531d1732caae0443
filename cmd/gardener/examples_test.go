package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// TestDocumentedCommandsWork runs every `gardener ...` command the documentation shows, so that
// the docs stay true: the README, every Markdown file under docs/, and the Example of every
// command of the CLI. docs/development.md ("Documented commands are tests") repeats these rules.
//
// What is a command:
//   - in a fenced code block labelled sh, bash, shell or console, every line (continuations
//     joined) is split at |, &&, || and ;, and each part that runs gardener (after NAME=VALUE
//     assignments, which become its environment) is a command; `> FILE` sends its output to
//     FILE. The other programs of a line (head, dot, kubectl, make) are not run, with one
//     exception: a `| jq FILTER` runs with -e on the command's output when jq is installed, so
//     that a filter naming a field the JSON lacks fails;
//   - in text and unlabelled blocks, which mostly show output, only `$ gardener ...` lines are
//     commands: transcripts, whose shown output must appear in the real output;
//   - every inline code span and heading that starts with `gardener <word>` (a synopsis like
//     `gardener state show DIR ADDRESS [--json]`), and every line of a command's Example.
//
// How a synopsis reads: `[...]` keeps its content (the command runs with every option it lists),
// `a|b` runs once per alternative, a trailing `...` is dropped, `[flags]` is dropped. Placeholders
// (DIR, FILE, PLANFILE, HASH, ADDR, <name>, ...) are replaced through placeholderValues and
// flagValues with real values: DIR is the repository's landscapes/local, PLANFILE a plan the
// test saved first with `plan --offline --out`, ADDRESS an address of the state the test wrote.
// `landscapes/prod`, a made-up production landscape, is landscapes/local too. A placeholder the
// tables do not know fails the test.
//
// How a command is checked, by its command path (commandRules):
//   - commands that change no cluster run for real against the binary built once for the test,
//     with an empty HOME and no KUBECONFIG: validate, plan, render, graph, components, schema,
//     fmt, version (and --version), show, completion, help, and output and state list, show, rm
//     and mv, which run against a copy of landscapes/local whose state block is a local file the
//     test wrote. A plan or render that a code block or Example shows against live clusters
//     runs against a local control plane with the contexts landscapes/local names (runtime, and
//     virtual-garden with the Gardener API; started in seconds, but each plan there takes about
//     ten), once per command (after placeholders are replaced); a repeat and a mention in prose
//     run with --offline added. Each runs in a fresh copy of landscapes/ (one per code block or
//     Example, so that a plan saved by one line is shown by the next), where fmt may rewrite
//     files and `/tmp/...` paths are redirected. It must exit 0 (with --detailed-exitcode: 0 or
//     2; a transcript that shows an error: 1, after the change the text describes is made in the
//     copy).
//   - commands that change clusters, need a running daemon or need live clusters (apply, destroy,
//     approve, status, daemon, snapshot, kubeconfig, force-unlock, plan --observed of a snapshot
//     no offline run can record, plan --server-dry-run) are parsed: the real command tree is executed
//     with every RunE replaced by a stub, so cobra checks the command path, every flag and its
//     value's type, and the number of arguments; the stub must be reached.
//   - a mention in prose that leaves out the positional arguments (`gardener plan --at TIME`)
//     is parsed, its arguments unchecked; a mention with arguments must have the right number.
//
// Nothing is skipped silently: a command path neither runs nor is parsed unless commandRules says
// so, and the test fails when fewer commands run than minRun (a test that skipped everything
// would pass otherwise).
func TestDocumentedCommandsWork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gardener binary and runs about a hundred commands")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	commands := documentedCommands(t, repo)
	fx := newExampleFixture(t, repo)

	var ran, parsed int
	for _, c := range commands {
		t.Run(c.source, func(t *testing.T) {
			for _, args := range expand(c.words) {
				switch fx.check(t, c, args) {
				case checkRan:
					ran++
				case checkParsed:
					parsed++
				}
			}
		})
	}
	t.Logf("%d documented commands: %d ran, %d parsed", len(commands), ran, parsed)
	assert.GreaterOrEqual(t, ran, minRun, "fewer documented commands ran than before: were some skipped?")
	assert.GreaterOrEqual(t, parsed, minParsed, "fewer documented commands were parsed than before")
}

// minRun and minParsed are a little below the counts of the docs as they are, so that a change of
// the rules that quietly stops running commands fails.
const (
	minRun    = 70
	minParsed = 70
)

// documentedCommands extracts the commands of the README, docs/ and every Example.
func documentedCommands(t *testing.T, repo string) []docCommand {
	files, err := markdownFiles(repo)
	require.NoError(t, err)
	var commands []docCommand
	for _, f := range files {
		cmds, err := extractMarkdown(filepath.Join(repo, f), f)
		require.NoError(t, err)
		commands = append(commands, cmds...)
	}
	examples, err := extractExamples(docRoot())
	require.NoError(t, err)
	require.NotEmpty(t, examples, "the commands' Examples hold commands")
	commands = append(commands, examples...)
	require.NotEmpty(t, commands)
	return commands
}

// how says how the commands of one command path are checked.
type how int

const (
	runIt how = iota // run for real against the built binary
	parse            // parsed by the command tree with stubs (the reason says why)
)

type commandRule struct {
	how    how
	reason string
}

// commandRules decides, per command path, whether a documented command runs or is parsed, and
// why. A command path that is not listed fails the test: a new command needs a decision.
var commandRules = map[string]commandRule{
	"validate":              {runIt, ""},
	"plan":                  {runIt, ""},
	"render":                {runIt, ""},
	"graph":                 {runIt, ""},
	"components":            {runIt, ""},
	"schema":                {runIt, ""},
	"fmt":                   {runIt, "in a copy of landscapes/"},
	"version":               {runIt, ""},
	"show":                  {runIt, ""},
	"state list":            {runIt, "against a local state the test writes"},
	"state show":            {runIt, "against a local state the test writes"},
	"completion bash":       {runIt, ""},
	"completion zsh":        {runIt, ""},
	"completion fish":       {runIt, ""},
	"completion powershell": {runIt, ""},
	"help":                  {runIt, ""},
	"apply":                 {parse, "changes clusters"},
	"destroy":               {parse, "changes clusters"},
	"daemon":                {parse, "runs a controller in a cluster until stopped"},
	"status":                {parse, "reads the status of a running daemon"},
	"approve":               {parse, "approves a running daemon's plan"},
	"snapshot":              {parse, "records live clusters"},
	"force-unlock":          {parse, "needs a state lock a crashed apply left"},
	"gardener":              {runIt, "the root's own flags (--version, --help)"},
	"kubeconfig":            {parse, "reads a live Shoot's adminkubeconfig subresource or the virtual garden's access"},
	"state rm":              {runIt, "against a copy of a local state the test writes"},
	"state mv":              {runIt, "against a copy of a local state the test writes"},
	"output":                {runIt, "against a copy of a local state the test writes"},
	"state":                 {parse, "names the state commands"},
	"completion":            {parse, "names the completion commands"},
}

// placeholderValues replaces a whole placeholder word wherever it stands; the values that depend
// on the fixture are filled in by newExampleFixture.
func (fx *exampleFixture) placeholderValues() map[string]string {
	return map[string]string{
		"DIR":                      "landscapes/local",
		"landscapes/prod":          "landscapes/local", // the CI example's production landscape
		"PLANFILE":                 fx.planFile,
		"FILE":                     fx.planFile,
		"PLAN_HASH":                strings.Repeat("ab", 32),
		"HASH":                     strings.Repeat("ab", 32),
		"LOCK_ID":                  "0b0e2f2c-5b7e-4c4f-9a1e-2f0c2e6d9b11",
		"ADDRESS":                  "component.project.local",
		"ADDR":                     "shoot.dev",
		"FROM":                     "shoot.ops",
		"TO":                       "shoot.operations",
		"NAME":                     "ops_namespace",
		"TYPE":                     "shoot",
		"PATH":                     "landscapes",
		"SNAPSHOT":                 "snapshot.json",
		"component.project.<name>": "component.project.local",
		"shoot.<name>":             "shoot.dev",
	}
}

// flagValues replaces a placeholder that is the value of a flag.
func (fx *exampleFixture) flagValues() map[string]string {
	return map[string]string{
		"var":            "hibernate_qa=true",
		"var-file":       fx.varFile,
		"out":            "plan.bin",
		"output":         "snapshot.json",
		"observed":       "snapshot.json",
		"output-dir":     "rendered",
		"lock-timeout":   "5m",
		"timeout":        "5m",
		"expiration":     "10m",
		"at":             "2026-11-23T20:00:00Z",
		"target":         "shoot.dev",
		"allow-destroy":  "shoot.dev",
		"rotate":         "ca",
		"adopt-lineage":  "0b0e2f2c-5b7e-4c4f-9a1e-2f0c2e6d9b11",
		"landscape":      "landscapes/local",
		"kubeconfig-dir": fx.dir,
		"kubeconfig":     filepath.Join(fx.dir, "kubeconfig"),
		"context":        "runtime",
		"parallelism":    "10",
	}
}

// transcriptSetups make, in the copy of landscapes/, the change a transcript's text describes
// before its command runs (keyed by the transcript's file and command).
var transcriptSetups = map[string]func(t *testing.T, landscapes string){
	// "With two mistakes put into landscapes/local (cluster.runtme in seed.hcl, a /33 prefix in
	// garden.hcl)".
	"docs/language.md gardener validate landscapes/local": func(t *testing.T, landscapes string) {
		replaceIn(t, filepath.Join(landscapes, "local", "seed.hcl"), "cluster = cluster.runtime", "cluster = cluster.runtme")
		replaceIn(t, filepath.Join(landscapes, "local", "garden.hcl"), `services = "10.96.0.0/16"`, `services = "10.96.0.0/33"`)
	},
	// "with the dev shoot's version set to "1.30.9"" (the first version in shoots.hcl is dev's).
	"docs/landscapes.md gardener validate landscapes/local": func(t *testing.T, landscapes string) {
		replaceIn(t, filepath.Join(landscapes, "local", "shoots.hcl"), "version = var.kubernetes_version", `version = "1.30.9"`)
	},
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), old, "%s changed: update the transcript's setup", path)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o600))
}

// exampleFixture is what the documented commands run with: the binary, a saved plan, a variable
// file, a landscape with a local state, and a directory per code block.
type exampleFixture struct {
	repo, dir, bin string
	planFile       string
	kubeconfig     string
	ranOnline      map[string]bool
	varFile        string
	stateDir       string
	groups         map[string]string
	outputDirs     int
	stateCopies    int
}

type checkResult int

const (
	checkFailed checkResult = iota
	checkRan
	checkParsed
)

func newExampleFixture(t *testing.T, repo string) *exampleFixture {
	dir := t.TempDir()
	fx := &exampleFixture{repo: repo, dir: dir, bin: filepath.Join(dir, "gardener"), groups: map[string]string{}, ranOnline: map[string]bool{}}
	build := exec.Command("go", "build", "-o", fx.bin, "./cmd/gardener")
	build.Dir = repo
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	fx.varFile = filepath.Join(dir, "vars.hcl")
	require.NoError(t, os.WriteFile(fx.varFile, []byte("hibernate_qa = true\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kubeconfig"), []byte("apiVersion: v1\nkind: Config\n"), 0o600))

	// The contexts landscapes/local names (runtime, virtual-garden with the Gardener API), for the
	// plans and renders the docs show against live clusters; no workloads or controllers, which a
	// plan does not need.
	fx.kubeconfig = localcluster.Start(t,
		localcluster.PlaneOptions{Name: localcluster.RuntimePlane},
		localcluster.PlaneOptions{Name: localcluster.VirtualGardenPlane, GardenerAPI: true},
	).Kubeconfig()

	fx.planFile = filepath.Join(dir, "plan.bin")
	res := fx.exec(t, repo, nil, "plan", "landscapes/local", "--offline", "--out", fx.planFile)
	require.Equal(t, 0, res.code, "the saved plan for PLANFILE: %s", res.stderr)

	// landscapes/local keeps its state in the runtime cluster; a copy keeps it in a local file
	// that records four of its components, its outputs and the ended lifetime of the dev shoot, for
	// the state commands and output (each of which runs on a copy of it).
	fx.stateDir = filepath.Join(dir, "state-landscape")
	copyTree(t, filepath.Join(repo, "landscapes", "local"), fx.stateDir)
	landscapeFile := filepath.Join(fx.stateDir, "landscape.hcl")
	data, err := os.ReadFile(landscapeFile)
	require.NoError(t, err)
	stateBlock := regexp.MustCompile(`(?s)\n  state \{.*?\n  \}\n`)
	require.Regexp(t, stateBlock, string(data), "landscapes/local declares its state block")
	require.NoError(t, os.WriteFile(landscapeFile, []byte(stateBlock.ReplaceAllString(string(data), "\n  state {\n    backend = \"local\"\n  }\n")), 0o600))
	s := state.Empty("local")
	s.Components["component.project.local"] = &state.Component{
		Address: "component.project.local", Type: "project", ConfigHash: "sha256:0",
		Objects: []state.Object{{Cluster: "virtual_garden", Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Project", Name: "local", UID: "u-1"}},
	}
	s.Components["component.manifests.local_addons"] = &state.Component{
		Address: "component.manifests.local_addons", Type: "manifests", ConfigHash: "sha256:1",
		Objects: []state.Object{{Cluster: "runtime", Version: "v1", Kind: "ConfigMap", Namespace: "kube-system", Name: "local-addons", UID: "u-2"}},
	}
	s.Components["shoot.qa.kube_apiserver"] = &state.Component{
		Address: "shoot.qa.kube_apiserver", Type: "kube_apiserver", ConfigHash: "sha256:2",
		Objects: []state.Object{{Cluster: "runtime", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shoot--local--qa", Name: "kube-apiserver", UID: "u-3"}},
	}
	s.Components["shoot.ops.kube_apiserver"] = &state.Component{
		Address: "shoot.ops.kube_apiserver", Type: "kube_apiserver", ConfigHash: "sha256:3",
		Objects: []state.Object{{Cluster: "runtime", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shoot--local--ops", Name: "kube-apiserver", UID: "u-4"}},
	}
	s.Outputs = map[string]*state.Output{
		"ops_namespace":    {Value: "shoot--local--ops"},
		"shoot_namespaces": {Value: map[string]any{"dev": "shoot--local--dev", "qa": "shoot--local--qa"}},
	}
	s.Retired = map[string]*state.Retirement{"shoot.dev": {Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-local/trial, 7 days"}}
	require.NoError(t, state.NewLocal(filepath.Join(fx.stateDir, state.DefaultLocalPath)).Write(context.Background(), s))
	return fx
}

// groupDir returns the working directory of a code block: a fresh copy of landscapes/.
func (fx *exampleFixture) groupDir(t *testing.T, group string) string {
	if dir, ok := fx.groups[group]; ok {
		return dir
	}
	dir := filepath.Join(fx.dir, fmt.Sprintf("group-%d", len(fx.groups)))
	copyTree(t, filepath.Join(fx.repo, "landscapes"), filepath.Join(dir, "landscapes"))
	fx.groups[group] = dir
	return dir
}

// check runs or parses one expansion of a documented command.
func (fx *exampleFixture) check(t *testing.T, c docCommand, args []string) checkResult {
	t.Helper()
	text := "gardener " + strings.Join(args, " ")
	cmd, _, err := docRoot().Find(args)
	if err != nil {
		t.Errorf("%s: %q is not a gardener command: %v", c.source, text, err)
		return checkFailed
	}
	path := strings.TrimPrefix(cmd.CommandPath(), "gardener ")
	rule, ok := commandRules[path]
	if !ok {
		t.Errorf("%s: %q: no rule for command %q in commandRules: decide whether it runs or is parsed", c.source, text, path)
		return checkFailed
	}
	dir := fx.groupDir(t, c.group)
	args, err = fx.substitute(cmd, path, args, dir)
	if err != nil {
		t.Errorf("%s: %q: %v", c.source, text, err)
		return checkFailed
	}
	positional, err := parseWithStubs(args, c.exact)
	if err != nil {
		t.Errorf("%s: %q does not parse: %v", c.source, text, err)
		return checkFailed
	}
	text = "gardener " + strings.Join(args, " ")
	switch {
	case rule.how == parse:
		t.Logf("parsed %q: %s", text, rule.reason)
		return checkParsed
	case !c.exact && positional == 0 && (cmd.ValidateArgs(nil) != nil || strings.Contains(cmd.Use, "DIR")):
		t.Logf("parsed %q: a mention without its arguments", text)
		return checkParsed
	case hasFlag(args, "observed"):
		t.Logf("parsed %q: --observed needs a snapshot, which only live clusters record", text)
		return checkParsed
	case hasFlag(args, "server-dry-run"):
		t.Logf("parsed %q: --server-dry-run needs live clusters", text)
		return checkParsed
	}
	env := c.env
	if (path == "plan" || path == "render") && !hasFlag(args, "offline") {
		key := strings.Join(args, " ")
		if c.exact && !fx.ranOnline[key] {
			// Written out in a code block or Example: against the local control plane, as a
			// reader with `make local-up` would run it (once per command: a plan takes seconds
			// there).
			fx.ranOnline[key] = true
			env = append(append([]string(nil), env...), "KUBECONFIG="+fx.kubeconfig)
		} else {
			args = append(args, "--offline")
		}
	}
	if strings.HasPrefix(path, "state ") || path == "output" {
		fx.stateCopies++
		copied := filepath.Join(dir, fmt.Sprintf("state-%d", fx.stateCopies))
		copyTree(t, fx.stateDir, copied)
		for i, a := range args {
			if a == fx.stateDir {
				args[i] = copied
			}
		}
	}
	wantCodes := []int{0}
	if hasFlag(args, "detailed-exitcode") {
		wantCodes = []int{0, 2}
	}
	if c.output != nil {
		setup, ok := transcriptSetups[strings.SplitN(c.source, ":", 2)[0]+" "+c.text()]
		if strings.Contains(strings.Join(c.output, "\n"), "Error:") {
			wantCodes = []int{1}
			if !ok {
				t.Errorf("%s: a transcript that shows an error needs its change in transcriptSetups", c.source)
				return checkFailed
			}
		}
		if ok {
			setup(t, filepath.Join(dir, "landscapes"))
		}
	}
	res := fx.exec(t, dir, env, args...)
	t.Logf("ran %q: exit %d", "gardener "+strings.Join(args, " "), res.code)
	if !assert.Contains(t, wantCodes, res.code, "%s: %q exited %d\nstdout:\n%s\nstderr:\n%s", c.source, "gardener "+strings.Join(args, " "), res.code, limit(res.stdout), res.stderr) {
		return checkFailed
	}
	if c.stdoutFile != "" {
		file := redirect(c.stdoutFile, dir)
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o700))
		require.NoError(t, os.WriteFile(file, []byte(res.stdout), 0o600))
	}
	if c.jq != nil {
		fx.checkJQ(t, c, res.stdout)
	}
	for _, line := range c.output {
		if strings.TrimSpace(line) != "" {
			assert.Contains(t, res.stdout+res.stderr, strings.TrimRight(line, " "), "%s: the transcript's output", c.source)
		}
	}
	return checkRan
}

var placeholderWord = regexp.MustCompile(`^[A-Z][A-Z_]*$|<[^>]*>|^\.\.\.$|^NAME=VALUE$`)

// substitute replaces the placeholders of args with real values.
func (fx *exampleFixture) substitute(cmd *cobra.Command, path string, args []string, dir string) ([]string, error) {
	words, flags := fx.placeholderValues(), fx.flagValues()
	out := make([]string, 0, len(args))
	valueOf := ""
	for _, a := range args {
		a = redirect(a, dir)
		if valueOf != "" {
			if placeholderWord.MatchString(a) || a == "D" || a == "N" {
				v, ok := flags[valueOf]
				if !ok {
					return nil, fmt.Errorf("no value for the placeholder %q of --%s in flagValues", a, valueOf)
				}
				a = v
				if valueOf == "output-dir" {
					fx.outputDirs++
					a = fmt.Sprintf("%s-%d", v, fx.outputDirs)
				}
			}
			valueOf = ""
			out = append(out, a)
			continue
		}
		if v, ok := words[a]; ok {
			a = v
		}
		if strings.HasPrefix(a, "--") && !strings.Contains(a, "=") {
			if f := cmd.Flag(strings.TrimPrefix(a, "--")); f != nil && f.NoOptDefVal == "" {
				valueOf = f.Name
			}
		}
		if placeholderWord.MatchString(a) {
			return nil, fmt.Errorf("no value for the placeholder %q in placeholderValues", a)
		}
		out = append(out, a)
	}
	// The state commands read the local state of the fixture's copy of landscapes/local.
	if strings.HasPrefix(path, "state ") || path == "force-unlock" || path == "output" {
		for i, a := range out {
			if a == "landscapes/local" {
				out[i] = fx.stateDir
			}
		}
	}
	return out, nil
}

// redirect moves an absolute /tmp path into the code block's directory.
func redirect(a, dir string) string {
	if strings.HasPrefix(a, "/tmp/") {
		return filepath.Join(dir, "tmp", strings.TrimPrefix(a, "/tmp/"))
	}
	return a
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}

// checkJQ runs the jq filter a documented command pipes its JSON into, with -e, so that a filter
// naming a field the JSON does not have (null) fails. Without jq on the PATH it says so.
func (fx *exampleFixture) checkJQ(t *testing.T, c docCommand, stdout string) {
	t.Helper()
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Logf("%s: jq is not installed, so its filter %q was not checked", c.source, c.jq)
		return
	}
	cmd := exec.Command(jq, append([]string{"-e"}, c.jq...)...)
	cmd.Stdin = strings.NewReader(stdout)
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "%s: jq %s of the command's output: %s", c.source, strings.Join(c.jq, " "), limit(string(out)))
}

// docRoot is the command tree with the commands cobra adds on Execute (completion, help).
func docRoot() *cobra.Command {
	root := newRootCommand(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	return root
}

// errStubbed is what every stubbed command returns once reached, with its positional arguments.
type errStubbed struct{ args []string }

func (errStubbed) Error() string { return "stub reached" }

// parseWithStubs executes the real command tree on args with every command's run replaced by a
// stub, so cobra checks the command path, the flags with their values' types, and (when exact)
// the number of arguments. It returns the number of positional arguments.
func parseWithStubs(args []string, exact bool) (int, error) {
	root := docRoot()
	var stub func(c *cobra.Command)
	stub = func(c *cobra.Command) {
		if c.Runnable() {
			original := c.Args
			c.PersistentPreRunE, c.PreRunE, c.PostRunE, c.PersistentPostRunE = nil, nil, nil, nil
			c.PersistentPreRun, c.PreRun, c.PostRun, c.PersistentPostRun = nil, nil, nil, nil
			c.Run = nil
			c.RunE = func(cmd *cobra.Command, positional []string) error {
				// A mention with arguments must have the right number of them.
				if !exact && len(positional) > 0 && original != nil {
					if err := original(cmd, positional); err != nil {
						return err
					}
				}
				return errStubbed{args: positional}
			}
			if !exact {
				// A mention may leave out arguments and required flags.
				c.Args = cobra.ArbitraryArgs
				c.Flags().VisitAll(func(f *pflag.Flag) { delete(f.Annotations, cobra.BashCompOneRequiredFlag) })
			}
		}
		for _, sub := range c.Commands() {
			stub(sub)
		}
	}
	stub(root)
	root.SetArgs(args)
	err := root.Execute()
	var reached errStubbed
	if errors.As(err, &reached) {
		return len(reached.args), nil
	}
	if err == nil && (hasFlag(args, "help") || slices.Contains(args, "-h") || hasFlag(args, "version")) {
		return 0, nil // cobra printed the command's help or the version
	}
	if err == nil {
		return 0, errors.New("no command ran (a command group printed its help)")
	}
	return 0, err
}

type execResult struct {
	code           int
	stdout, stderr string
}

// exec runs the built binary in dir as a new user without any cluster: an empty HOME, no
// KUBECONFIG, no colours.
func (fx *exampleFixture) exec(t *testing.T, dir string, env []string, args ...string) execResult {
	t.Helper()
	home := filepath.Join(fx.dir, "home")
	require.NoError(t, os.MkdirAll(home, 0o700))
	cmd := exec.Command(fx.bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "TMPDIR=" + os.TempDir()}, env...)
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := execResult{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running gardener %s: %v", strings.Join(args, " "), err)
	}
	return res
}

func limit(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "\n..."
	}
	return s
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	}))
}
