// Package atomicfile replaces files so that readers see the old content or the new one, never a
// half-written file, also when several processes share a directory: the state, saved plans,
// snapshots, formatted landscapes and the caches all write this way.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, readable as perm: a new file in the same directory, written,
// synced and renamed over path, then the directory synced so the rename survives a crash.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := TempNextTo(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// TempNextTo writes data to a new file with mode perm next to path (hidden, in the same
// directory, so that it can be renamed or linked over path) and returns its name. The mode is
// set before anything is written: secrets are never readable by others, not even briefly.
func TempNextTo(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		_ = f.Close()
		_ = os.Remove(name)
		return "", err
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}

// SyncDir makes a rename in dir durable. It is best effort: some filesystems cannot sync a
// directory, and the rename itself is atomic either way.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
