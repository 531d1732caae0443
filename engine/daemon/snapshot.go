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

// landscapeFile is a file of the landscape directory: a regular file, or a symbolic link that leads out
// of the directory (Out is where it leads), which is kept a link.
type landscapeFile struct {
	Path string
	Out  string
}

// files lists the landscape's regular files relative to dir, sorted, following symbolic links
// that stay inside it (a ConfigMap volume's files and a git-sync checkout are links). A link that
// leads out of the directory is listed as such and not followed: the daemon's snapshot keeps it a
// link, so that confined mode refuses it as it would in the directory itself, instead of copying
// what it points to (the service account token, a mounted kubeconfig) into the landscape.
func files(dir string) ([]landscapeFile, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("landscape directory %s: %w", dir, err)
	}
	var out []landscapeFile
	seen := map[string]bool{}
	var walk func(rel, real string) error
	walk = func(rel, real string) error {
		if seen[real] {
			return nil // a link back up the tree
		}
		seen[real] = true
		entries, err := os.ReadDir(real)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if skipped(e.Name()) {
				continue
			}
			p, full := filepath.Join(rel, e.Name()), filepath.Join(real, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(full)
				if err != nil {
					// A dangling link: kept as it is, and reported by whatever reads it.
					raw, rerr := os.Readlink(full)
					if rerr != nil {
						return rerr
					}
					out = append(out, landscapeFile{Path: p, Out: raw})
					continue
				}
				if !inside(root, target) {
					out = append(out, landscapeFile{Path: p, Out: target})
					continue
				}
				full = target
			}
			info, err := os.Stat(full)
			if err != nil {
				return err
			}
			switch {
			case info.IsDir():
				if err := walk(p, full); err != nil {
					return err
				}
			case info.Mode().IsRegular():
				out = append(out, landscapeFile{Path: p})
			}
		}
		return nil
	}
	if err := walk(".", root); err != nil {
		return nil, fmt.Errorf("landscape directory %s: %w", dir, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// inside reports whether path lies in dir.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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
		if n.Out != "" {
			fmt.Fprintf(h, "%s\x00->%s\x00", filepath.ToSlash(n.Path), n.Out)
			continue
		}
		f, err := os.Open(filepath.Join(dir, n.Path))
		if err != nil {
			return "", fmt.Errorf("landscape directory %s: %w", dir, err)
		}
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(n.Path))
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
		target := filepath.Join(out, n.Path)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			os.RemoveAll(out)
			return "", "", fmt.Errorf("landscape snapshot: %w", err)
		}
		if n.Out != "" {
			if err := os.Symlink(n.Out, target); err != nil {
				os.RemoveAll(out)
				return "", "", fmt.Errorf("landscape snapshot: %w", err)
			}
			continue
		}
		if err := copyFile(filepath.Join(dir, n.Path), target); err != nil {
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

// copyFile copies a file without holding it in memory: a landscape directory may hold files far
// larger than any the landscape may read.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(0o644))
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
