package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), got)
}

const unformatted = "garden \"local\" {\ncluster=cluster.runtime\n  replicas   = 3\n}\n"
const formatted = "garden \"local\" {\n  cluster  = cluster.runtime\n  replicas = 3\n}\n"

// landscapeDir writes files (relative name to content) into a temporary directory and changes
// into it, so that output names relative paths as a user would see them.
func landscapeDir(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	t.Chdir(dir)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestFmtCheckListsFilesAndWritesNothing(t *testing.T) {
	landscapeDir(t, map[string]string{"a.hcl": unformatted, "b.hcl": formatted, "sub/c.hcl": unformatted})
	out, _, err := run(t, "fmt", "--check")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "a.hcl\n", out, "without --recursive subdirectories are not visited")
	assert.Equal(t, unformatted, read(t, "a.hcl"))

	out, _, err = run(t, "fmt", "--check", "--recursive")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "a.hcl\nsub/c.hcl\n", out)

	out, _, err = run(t, "fmt", "--check", "b.hcl")
	assert.NoError(t, err, "a formatted file passes the check")
	assert.Empty(t, out)
}

func TestFmtRewritesFiles(t *testing.T) {
	landscapeDir(t, map[string]string{"a.hcl": unformatted, "b.hcl": formatted})
	out, _, err := run(t, "fmt")
	require.NoError(t, err)
	assert.Equal(t, "a.hcl\n", out, "only changed files are listed")
	assert.Equal(t, formatted, read(t, "a.hcl"))

	out, _, err = run(t, "fmt", "--check")
	require.NoError(t, err)
	assert.Empty(t, out, "a second run finds nothing to do")
}

func TestFmtDiffGolden(t *testing.T) {
	landscapeDir(t, map[string]string{"a.hcl": unformatted})
	out, _, err := run(t, "fmt", "--check", "--diff")
	assert.Equal(t, exitCode(1), err)
	golden(t, "fmt/diff.golden", out)
	assert.Equal(t, unformatted, read(t, "a.hcl"))
}

func TestFmtSyntaxErrorIsReportedAndFileUntouched(t *testing.T) {
	broken := "garden \"local\" {\n  cluster = \n}\n"
	landscapeDir(t, map[string]string{"broken.hcl": broken, "a.hcl": unformatted})
	out, errOut, err := run(t, "fmt")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "a.hcl\n", out, "the other files are still formatted")
	assert.Equal(t, broken, read(t, "broken.hcl"))
	golden(t, "fmt/syntax-error.golden", errOut)
}

func TestFmtStdin(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		input   string
		wantOut string
		wantErr error
	}{
		{"formats to stdout", []string{"fmt", "-"}, unformatted, formatted, nil},
		{"check fails on unformatted input", []string{"fmt", "--check", "-"}, unformatted, "", exitCode(1)},
		{"check passes formatted input", []string{"fmt", "--check", "-"}, formatted, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := newRootCommand(&stdout, &stderr)
			root.SetIn(strings.NewReader(tt.input))
			root.SetArgs(tt.args)
			err := root.Execute()
			assert.Equal(t, tt.wantErr, err)
			assert.Equal(t, tt.wantOut, stdout.String())
		})
	}
	_, _, err := run(t, "fmt", "-", "a.hcl")
	assert.ErrorContains(t, err, "cannot be combined")
}

func TestFmtMissingPath(t *testing.T) {
	landscapeDir(t, nil)
	_, _, err := run(t, "fmt", "nope")
	assert.ErrorContains(t, err, "nope")
}
