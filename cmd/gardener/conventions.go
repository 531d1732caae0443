package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/klog/v2"

	"github.com/declarative-gardener/gardener/engine/diag"
)

// The conventions every command line tool is expected to follow (docs/cli.md, "Conventions"):
// --no-color, NO_COLOR and TERM=dumb turn colour off; --log-level and GARDENER_LOG_LEVEL say how
// much is logged; --version prints the version; a command group fails on a subcommand it does
// not know; the directory argument defaults to the working directory.

// logLevelEnv is the environment variable --log-level defaults to.
const logLevelEnv = "GARDENER_LOG_LEVEL"

// globalFlags are the flags of the root command, which every command inherits.
type globalFlags struct {
	noColor  bool
	logLevel string
}

// colorOff is set by --no-color for the command being run. It is the one piece of global state
// of the package: useColor is asked by every view, deep in the commands.
var colorOff bool

// logLevel is the level --log-level (or GARDENER_LOG_LEVEL) chose for the command being run.
var logLevel = slog.LevelInfo

func (f *globalFlags) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.BoolVar(&f.noColor, "no-color", false, "print no colour (also NO_COLOR=1 or TERM=dumb)")
	fl.StringVar(&f.logLevel, "log-level", "", "how much to log: debug, info, warn or error (default: "+logLevelEnv+", else info); debug includes client-go's messages")
	_ = root.RegisterFlagCompletionFunc("log-level", fixedCompletions(logLevelNames...))
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		colorOff = f.noColor
		name := f.logLevel
		if !cmd.Flags().Changed("log-level") {
			name = os.Getenv(logLevelEnv)
		}
		level, err := parseLogLevel(name)
		if err != nil {
			return err
		}
		logLevel = level
		routeKlog(cmd.ErrOrStderr(), level)
		return nil
	}
}

// logLevelNames are the values of --log-level, in increasing severity.
var logLevelNames = []string{"debug", "info", "warn", "error"}

// parseLogLevel reads a --log-level value; empty means info.
func parseLogLevel(name string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q is none of %s", name, strings.Join(logLevelNames, ", "))
}

// klogDebugVerbosity is client-go's verbosity at --log-level debug: retries, throttling and
// discovery, without the request URLs (6) and bodies (8), which may hold what the plan redacts.
const klogDebugVerbosity = "4"

// routeKlog sends what client-go logs through klog (its warnings and errors; at debug also its
// messages up to klogDebugVerbosity) to w as text lines of the chosen level, rather than klog's
// own format that ignores the level.
func routeKlog(w io.Writer, level slog.Level) {
	verbosity := "0"
	if level <= slog.LevelDebug {
		verbosity = klogDebugVerbosity
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", verbosity) // a valid number: cannot fail
	klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
}

// useColor reports whether w is a terminal that wants colour: not with --no-color, NO_COLOR or
// TERM=dumb, and never for pipes or files. golang.org/x/term asks the terminal driver, so that a
// character device that is no terminal (/dev/null) gets no escape sequences either.
func useColor(w io.Writer) bool {
	if colorOff || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// requireKnownSubcommands makes every command group below root (a command that only holds
// subcommands, such as state) fail on an argument that names no subcommand: cobra prints the
// group's help and exits 0 for them, so that a typo or a command of a newer version seems to
// work. The group alone still prints its help.
func requireKnownSubcommands(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		if cmd.HasSubCommands() && !cmd.Runnable() {
			cmd.Args = cobra.NoArgs // its error: unknown command "mv" for "gardener state"
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		requireKnownSubcommands(cmd)
	}
}

// dirArg is the landscape directory a command was given as its first argument, or the working
// directory when it has none.
func dirArg(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return args[0]
}

// dirAndRest splits the arguments of a command that takes [DIR] ARG...: the first of several
// arguments is DIR when it is a directory; otherwise all are ARGs of the landscape in the working
// directory. (Addresses such as component.manifests.app are not directories.)
func dirAndRest(args []string) (dir string, rest []string) {
	if len(args) > 1 {
		if info, err := os.Stat(args[0]); err == nil && info.IsDir() {
			return args[0], args[1:]
		}
	}
	return ".", args
}

// fixedCompletions completes a flag or argument with a fixed list of values.
func fixedCompletions(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// Diagnostics wrap their details at the terminal's width, within these bounds: a narrow window
// still gets readable paragraphs, a wide one no lines too long to read.
const minDiagWidth, maxDiagWidth = 40, 160

// diagOptions are the options diagnostics are printed to w with: colour as useColor says, and
// details wrapped at the terminal's width (golang.org/x/term), or at 78 columns when w is no
// terminal.
func diagOptions(w io.Writer) diag.TextOptions {
	opts := diag.TextOptions{Color: useColor(w)}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			opts.Width = uint(min(max(cols, minDiagWidth), maxDiagWidth))
		}
	}
	return opts
}
