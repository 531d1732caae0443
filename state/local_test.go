package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/internal/bounded"
)

func TestLocalConformance(t *testing.T) {
	testConformance(t, func(t *testing.T) opener {
		path := filepath.Join(t.TempDir(), DefaultLocalPath)
		return func() Backend { return NewLocalWithOptions(path, LocalOptions{PollInterval: 50 * time.Millisecond}) }
	})
}

func TestLocalFileIsPrivateAndWrittenAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultLocalPath)
	// A state file readable by others before is private after the next write.
	require.NoError(t, os.WriteFile(path, []byte(`{"format_version":1,"lineage":"l","serial":1,"components":{}}`), 0o644))
	b := NewLocal(path)
	s, err := b.Read(context.Background())
	require.NoError(t, err)
	require.NoError(t, b.Write(context.Background(), s))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	var raw map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.Equal(t, float64(2), raw["serial"])
	assert.Equal(t, "l", raw["lineage"])
}

func TestLocalLockFileNamesTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultLocalPath)
	lock, err := NewLocal(path).Lock(context.Background(), LockInfo{Holder: "alice@host pid 7", Operation: "apply"})
	require.NoError(t, err)
	data, err := os.ReadFile(path + ".lock")
	require.NoError(t, err)
	var lf lockFile
	require.NoError(t, json.Unmarshal(data, &lf))
	assert.Equal(t, lock.ID(), lf.ID)
	assert.Equal(t, "alice@host pid 7", lf.Holder)
	assert.Equal(t, "apply", lf.Operation)
	info, err := os.Stat(path + ".lock")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	require.NoError(t, lock.Unlock(context.Background()))
	assert.NoFileExists(t, path+".lock")
}

func TestLocalReadErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"not JSON", "{", "decode"},
		{"newer format", `{"format_version":"2.0"}`, "format version 2.0 is not supported (this gardener reads version 1.0)"},
		{"newer minor format", `{"format_version":"1.1"}`, "format version 1.1 is not supported"},
		{"earlier style, newer format", `{"format_version":2}`, "format version 2.0 is not supported"},
		{"no format", `{"serial":1}`, "format version 0.0 is not supported"},
		{"not a version", `{"format_version":"one"}`, `format version "one" is not MAJOR.MINOR`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			_, err := NewLocal(path).Read(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestLocalReadsEveryFormatVersionStyle: states written before format_version became the string
// "MAJOR.MINOR" (the number 1) still read, and are written back in the new style.
func TestLocalReadsEveryFormatVersionStyle(t *testing.T) {
	for _, version := range []string{`1`, `"1"`, `"1.0"`} {
		t.Run(version, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			require.NoError(t, os.WriteFile(path, []byte(`{"format_version":`+version+`,"lineage":"l","serial":1,"components":{}}`), 0o600))
			b := NewLocal(path)
			s, err := b.Read(context.Background())
			require.NoError(t, err)
			require.NoError(t, b.Write(context.Background(), s))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Contains(t, string(data), `"format_version": "1.0"`)
		})
	}
}

func TestLocalUnreadableLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultLocalPath)
	require.NoError(t, os.WriteFile(path+".lock", []byte("garbage"), 0o600))
	_, err := NewLocal(path).Lock(context.Background(), LockInfo{Operation: "apply"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable")
}

// The local backend keeps one landscape's state: a file holding another landscape's (copied, or
// named by a state block) is refused, not planned against and overwritten.
func TestLocalRefusesAnotherLandscapesState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DefaultLocalPath)
	other := NewLocalWithOptions(path, LocalOptions{Landscape: "other"})
	s, err := other.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "other", s.Landscape, "an empty state is the landscape's")
	require.NoError(t, other.Write(ctx, sample("other")))

	mine := NewLocalWithOptions(path, LocalOptions{Landscape: "mine"})
	_, err = mine.Read(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `holds the state of landscape "other", not "mine"`)
	assert.Contains(t, err.Error(), path)
	assert.Error(t, mine.Write(ctx, sample("mine")), "and is not overwritten")

	got, err := other.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "other", got.Landscape)

	// A state an earlier gardener wrote without a landscape name is taken as this one's.
	legacy := filepath.Join(t.TempDir(), DefaultLocalPath)
	require.NoError(t, os.WriteFile(legacy, []byte(`{"format_version":1,"lineage":"l","serial":1,"components":{}}`), 0o600))
	s, err = NewLocalWithOptions(legacy, LocalOptions{Landscape: "mine"}).Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, "mine", s.Landscape)
}

// The state file is read only if it is a regular file of bounded size: a FIFO in its place (the
// landscape directory is untrusted) must not hang the plan.
func TestLocalReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.state")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(dir, "big.state")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxStateSize+1))
	require.NoError(t, f.Close())
	for path, want := range map[string]string{fifo: "not a regular file", big: "larger than 64 MiB", dir: "not a regular file"} {
		err := bounded.Run(t, bounded.Default, func() error { _, err := NewLocal(path).Read(context.Background()); return err })
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), want, path)
	}
	// So is its lock file.
	state := filepath.Join(dir, DefaultLocalPath)
	require.NoError(t, syscall.Mkfifo(state+".lock", 0o600))
	err = bounded.Run(t, bounded.Default, func() error {
		_, err := NewLocal(state).Lock(context.Background(), LockInfo{Operation: "apply"})
		return err
	})
	assert.ErrorContains(t, err, "not a regular file")
}
