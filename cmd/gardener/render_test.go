package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenderErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte("landscape \"l\" {}\ncomponent \"manifests\" \"x\" {\n  cluster = cluster.nowhere\n}\n"), 0o600))

	_, errOut, err := run(t, "render", dir)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "--output-dir D is required")

	out := filepath.Join(t.TempDir(), "out")
	_, errOut, err = run(t, "render", dir, "--output-dir", out)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "main.hcl line 3")
	entries, _ := os.ReadDir(out)
	assert.Empty(t, entries, "nothing is written for an invalid landscape")
}
