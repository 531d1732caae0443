package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// skipped reports whether a directory entry is not part of the landscape: the bookkeeping
// entries of a ConfigMap volume (..data, ..2026_11_21...) and of git (.git).
func skipped(name string) bool {
	return strings.HasPrefix(name, "..") || name == ".git"
}

// files lists the landscape's regular files relative to dir, following symbolic links (a
// ConfigMap volume's files and a git-sync checkout are links), sorted.
func files(dir string) ([]string, error) {
	var out []string
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if skipped(e.Name()) {
				continue
			}
			p := filepath.Join(rel, e.Name())
			info, err := os.Stat(filepath.Join(dir, p)) // follows links
			if err != nil {
				return err
			}
			switch {
			case info.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case info.Mode().IsRegular():
				out = append(out, p)
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, fmt.Errorf("landscape directory %s: %w", dir, err)
	}
	sort.Strings(out)
	return out, nil
}

// Fingerprint is the SHA-256 of the landscape directory's file names and contents: it changes
// exactly when a file does, however the directory is updated (an atomic symlink swap of a
// ConfigMap volume or git-sync included).
func Fingerprint(dir string) (string, error) {
	names, err := files(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return "", fmt.Errorf("landscape directory %s: %w", dir, err)
		}
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(n))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("landscape directory %s: %w", dir, err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Snapshot copies the landscape directory into a new directory under parent, so that a cycle
// plans and applies one consistent version even if the source changes meanwhile. It returns
// the copy and the fingerprint of what it copied.
func Snapshot(dir, parent string) (string, string, error) {
	names, err := files(dir)
	if err != nil {
		return "", "", err
	}
	out, err := os.MkdirTemp(parent, "landscape-")
	if err != nil {
		return "", "", fmt.Errorf("landscape snapshot: %w", err)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			os.RemoveAll(out)
			return "", "", fmt.Errorf("landscape directory %s: %w", dir, err)
		}
		target := filepath.Join(out, n)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			os.RemoveAll(out)
			return "", "", fmt.Errorf("landscape snapshot: %w", err)
		}
		if err := os.WriteFile(target, data, fs.FileMode(0o644)); err != nil {
			os.RemoveAll(out)
			return "", "", fmt.Errorf("landscape snapshot: %w", err)
		}
	}
	fp, err := Fingerprint(out)
	if err != nil {
		os.RemoveAll(out)
		return "", "", err
	}
	return out, fp, nil
}
