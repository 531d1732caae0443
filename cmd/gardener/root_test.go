package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := newRootCommand(&stdout, &stderr)
	root.SetArgs(args)
	err := root.Execute()
	return stdout.String(), stderr.String(), err
}

func TestVersion(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v1.2.3"

	out, _, err := run(t, "version")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "gardener v1.2.3"), out)
	assert.Contains(t, out, runtime.GOOS+"/"+runtime.GOARCH)

	out, _, err = run(t, "version", "--json")
	require.NoError(t, err)
	var info buildInfo
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "v1.2.3", info.Version)
	assert.Equal(t, runtime.Version(), info.GoVersion)
}

func TestVersionWithoutStampIsDev(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = ""
	// Test binaries carry no module version, so the fallback applies.
	assert.Equal(t, "dev", currentBuildInfo().Version)
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		shell string
		want  string
	}{
		{"bash", "__start_gardener"},
		{"zsh", "#compdef gardener"},
		{"fish", "complete -c gardener"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			out, _, err := run(t, "completion", tt.shell)
			require.NoError(t, err)
			assert.Contains(t, out, tt.want)
		})
	}
}

func TestUnknownCommandFails(t *testing.T) {
	_, _, err := run(t, "no-such-command")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown command "no-such-command"`)
}

func TestVersionRejectsArguments(t *testing.T) {
	_, _, err := run(t, "version", "extra")
	require.Error(t, err)
}
