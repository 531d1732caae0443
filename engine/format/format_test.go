package format

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestSourceGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/unformatted.hcl")
	require.NoError(t, err)
	got, file, diags := Source(src, "unformatted.hcl")
	require.False(t, diags.HasErrors(), diags.Error())
	require.NotNil(t, file)
	assert.True(t, Changed(src, got))

	golden := "testdata/unformatted.hcl.golden"
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	again, _, _ := Source(got, "formatted.hcl")
	assert.False(t, Changed(got, again), "formatting is idempotent")
}

func TestSourceRejectsSyntaxErrors(t *testing.T) {
	out, file, diags := Source([]byte("garden \"x\" {\n  a = \n"), "broken.hcl")
	require.True(t, diags.HasErrors())
	assert.Nil(t, out)
	require.NotNil(t, file, "the partial file is returned for rendering the diagnostics")
	assert.Equal(t, "broken.hcl", diags[0].Subject.Filename)
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.hcl", "a.hcl", "c.hcl.json", "notes.txt", "sub/d.hcl", "sub/deeper/e.hcl", ".hidden/f.hcl"} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, nil, 0o644))
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(dir, p)
			require.NoError(t, err)
			out = append(out, r)
		}
		return out
	}
	tests := []struct {
		name      string
		paths     []string
		recursive bool
		want      []string
	}{
		{"a directory gives its hcl files, sorted", []string{dir}, false, []string{"a.hcl", "b.hcl"}},
		{"recursive descends except into hidden directories", []string{dir}, true, []string{"a.hcl", "b.hcl", "sub/d.hcl", "sub/deeper/e.hcl"}},
		{"a named file is taken whatever its extension", []string{filepath.Join(dir, "notes.txt")}, false, []string{"notes.txt"}},
		{"duplicates collapse", []string{dir, filepath.Join(dir, "a.hcl")}, false, []string{"a.hcl", "b.hcl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Files(tt.paths, tt.recursive)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rel(got))
		})
	}
	_, err := Files([]string{filepath.Join(dir, "missing")}, false)
	assert.ErrorContains(t, err, "missing")
}

func TestWriteFileKeepsPermissionsAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.hcl")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o640))
	require.NoError(t, WriteFile(path, []byte("new\n")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)

	assert.ErrorIs(t, WriteFile(dir, nil), ErrNotRegular)
}

// fmt runs in CI on the files of a pull request too: a file nested deep enough to overflow the
// parser's stack is a diagnostic, not a crash.
func TestDeepNestingIsADiagnostic(t *testing.T) {
	src := []byte("a = " + strings.Repeat("(", 300000) + "1" + strings.Repeat(")", 300000) + "\n")
	_, _, diags := Source(src, "deep.hcl")
	require.True(t, diags.HasErrors())
	assert.Equal(t, "Nesting too deep", diags[0].Summary)
	assert.Equal(t, "deep.hcl", diags[0].Subject.Filename)
}
