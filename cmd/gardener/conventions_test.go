package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"

	"github.com/declarative-gardener/gardener/state"
)

func TestUnknownSubcommandsFail(t *testing.T) {
	for _, args := range [][]string{{"state", "frobnicate", "a", "b"}, {"completion", "nushell"}} {
		t.Run(args[0], func(t *testing.T) {
			out, _, err := run(t, args...)
			require.Error(t, err)
			assert.Equal(t, fmt.Sprintf("unknown command %q for \"gardener %s\"", args[1], args[0]), err.Error())
			assert.Empty(t, out, "no help for a command that does not exist")
		})
	}
	out, _, err := run(t, "state")
	require.NoError(t, err, "a group alone prints its help")
	assert.Contains(t, out, "Available Commands:")
}

func TestVersionFlag(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v1.2.3"
	flagOut, _, err := run(t, "--version")
	require.NoError(t, err)
	cmdOut, _, err := run(t, "version")
	require.NoError(t, err)
	assert.Equal(t, cmdOut, flagOut)
	assert.Regexp(t, `^gardener v1\.2\.3 .*go.* \S+/\S+\n$`, flagOut)
}

func TestLogLevel(t *testing.T) {
	t.Cleanup(func() { logLevel = slog.LevelInfo })
	tests := []struct {
		flag, env string
		want      slog.Level
		err       string
	}{
		{"", "", slog.LevelInfo, ""},
		{"debug", "", slog.LevelDebug, ""},
		{"", "warn", slog.LevelWarn, ""},
		{"error", "debug", slog.LevelError, ""}, // the flag wins
		{"", "loud", 0, `log level "loud" is none of debug, info, warn, error`},
		{"verbose", "", 0, `log level "verbose" is none of debug, info, warn, error`},
	}
	for _, tt := range tests {
		t.Run(tt.flag+"/"+tt.env, func(t *testing.T) {
			t.Setenv(logLevelEnv, tt.env)
			args := []string{"version"}
			if tt.flag != "" {
				args = append(args, "--log-level", tt.flag)
			}
			_, _, err := run(t, args...)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, logLevel)
		})
	}
}

// openTerminal opens a pseudo-terminal and returns its terminal end.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetUint32(int(ptmx.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close() })
	return tty
}

func TestColorConventions(t *testing.T) {
	tty := openTerminal(t)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { devNull.Close(); colorOff = false })
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		out       *os.File
		wantColor bool
	}{
		{"terminal", nil, nil, tty, true},
		{"--no-color", []string{"--no-color"}, nil, tty, false},
		{"NO_COLOR", nil, map[string]string{"NO_COLOR": "1"}, tty, false},
		{"TERM=dumb", nil, map[string]string{"TERM": "dumb"}, tty, false},
		{"/dev/null is a character device but no terminal", nil, nil, devNull, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", "")
			t.Setenv("TERM", "xterm")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, _, err := run(t, append([]string{"version"}, tt.args...)...)
			require.NoError(t, err)
			assert.Equal(t, tt.wantColor, useColor(tt.out))
		})
	}
}

// TestDirDefaultsToWorkingDirectory runs the commands that take a landscape directory without
// it, in the landscape's directory, and with it, from elsewhere: the same output.
func TestDirDefaultsToWorkingDirectory(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": stateLandscape}, state.DefaultLocalPath, sampleState())
	landscape, err := os.Getwd()
	require.NoError(t, err)
	tests := [][]string{
		{"validate"},
		{"graph", "--format", "dot"},
		{"state", "list"},
		{"state", "show", "component.helm_release.cert_manager"},
		{"state", "rm", "--dry-run", "component.helm_release.cert_manager", `shoot.dev["a"]`},
		{"state", "mv", "--dry-run", "component.helm_release.cert_manager", "component.helm_release.certs"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Chdir(landscape)
			here, errOut, err := runState(t, "", args...)
			require.NoError(t, err, errOut)
			require.NotEmpty(t, here)

			t.Chdir(t.TempDir())
			withDir := append(slices.Clone(args[:len(args)-len(operands(args))]), landscape)
			withDir = append(withDir, operands(args)...)
			there, errOut, err := runState(t, "", withDir...)
			require.NoError(t, err, errOut)
			assert.Equal(t, here, there)
		})
	}
}

// operands are the arguments after a test's command words and flags (addresses).
func operands(args []string) []string {
	for i, a := range args {
		if strings.Contains(a, ".") {
			return args[i:]
		}
	}
	return nil
}

func TestDirAndRest(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args     []string
		wantDir  string
		wantRest []string
	}{
		{[]string{"component.a.b"}, ".", []string{"component.a.b"}},
		{[]string{dir}, ".", []string{dir}}, // one argument is always an address
		{[]string{dir, "component.a.b"}, dir, []string{"component.a.b"}},
		{[]string{"component.a.b", "component.a.c"}, ".", []string{"component.a.b", "component.a.c"}},
	}
	for _, tt := range tests {
		gotDir, gotRest := dirAndRest(tt.args)
		assert.Equal(t, tt.wantDir, gotDir, tt.args)
		assert.Equal(t, tt.wantRest, gotRest, tt.args)
	}
}

func TestDiagnosticsWrapAtTheTerminalsWidth(t *testing.T) {
	tty := openTerminal(t)
	pipeR, pipeW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { pipeR.Close(); pipeW.Close() })
	tests := []struct {
		name string
		cols uint16
		out  *os.File
		want uint
	}{
		{"terminal", 100, tty, 100},
		{"narrow terminal", 20, tty, minDiagWidth},
		{"wide terminal", 300, tty, maxDiagWidth},
		{"no terminal: the default 78", 100, pipeW, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: tt.cols, Row: 40}))
			assert.Equal(t, tt.want, diagOptions(tt.out).Width)
		})
	}
}

// TestClientGoLogsAtTheLogLevel: what client-go logs through klog goes to standard error at the
// chosen level: its warnings at info, not at error; its verbose messages only at debug.
func TestClientGoLogsAtTheLogLevel(t *testing.T) {
	t.Cleanup(func() { logLevel = slog.LevelInfo; klog.ClearLogger() })
	tests := []struct {
		level             string
		warning, detailed bool
	}{
		{"error", false, false},
		{"info", true, false},
		{"debug", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := newRootCommand(&stdout, &stderr)
			root.SetArgs([]string{"version", "--log-level", tt.level})
			require.NoError(t, root.Execute())
			klog.Warning("throttled by the server")
			klog.V(3).Info("discovery cache refreshed")
			assert.Equal(t, tt.warning, strings.Contains(stderr.String(), "throttled by the server"), stderr.String())
			assert.Equal(t, tt.detailed, strings.Contains(stderr.String(), "discovery cache refreshed"), stderr.String())
		})
	}
}
