// Package landscapefs is how the engine reads the files a landscape names: its own *.hcl files,
// the arguments of file() and templatefile(), the files of manifests, charts and the kubeconfigs of
// cluster blocks. A landscape is untrusted input (CI plans pull requests), so every read takes
// only regular files up to MaxFileSize (never /dev/zero, a FIFO or a directory), and in confined
// mode only paths that stay inside the landscape directory, symbolic links resolved. The
// operator's own configuration (KUBECONFIG, ~/.kube/config, in-cluster credentials, the
// directories of kubeconfigs mounted for the daemon) is not the landscape's and is not confined;
// docs/security.md describes the trust model.
package landscapefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// MaxFileSize is the largest file a landscape may make the tool read: far above any landscape
// file, template, manifest or chart archive, and small enough that reading it cannot exhaust
// memory.
const MaxFileSize = 16 << 20

// EnvConfined switches confined mode on for every command that loads a landscape when set to a
// true value ("1", "true"), as --confined does.
const EnvConfined = "GARDENER_CONFINED"

// ErrOutside is the error of a path that leaves the landscape directory in confined mode.
var ErrOutside = errors.New("confined mode reads only inside the landscape directory")

// Policy is what the operator says about the landscape directory.
type Policy struct {
	// Confined keeps every path the landscape names inside its directory: no absolute paths, no
	// ".." out of it, no symbolic link that resolves outside it; and refuses kubeconfigs inside
	// it that run programs (exec credential plugins) or use auth providers.
	Confined bool
	// KubeconfigDirs are directories of the operator's kubeconfigs (the daemon's mounted Secret):
	// a cluster block may name a kubeconfig in them in confined mode, and it is used as it is,
	// exec plugins included, since the operator put it there.
	KubeconfigDirs []string
}

// Dir is a landscape directory read under a policy. Its methods take paths as the landscape
// names them: relative to the directory, or absolute outside confined mode.
type Dir struct {
	root   string
	policy Policy

	realOnce sync.Once
	realRoot string
	realErr  error
}

// New returns the landscape directory root read under policy.
func New(root string, policy Policy) *Dir {
	return &Dir{root: root, policy: policy}
}

// orWorkingDir is d, or for a nil Dir the working directory read unconfined: a component's
// values built by hand (a test) name files relative to where the test runs.
func (d *Dir) orWorkingDir() *Dir {
	if d == nil {
		return New(".", Policy{})
	}
	return d
}

// Root is the landscape directory.
func (d *Dir) Root() string { return d.orWorkingDir().root }

// Policy is the policy the directory is read under.
func (d *Dir) Policy() Policy { return d.orWorkingDir().policy }

// Confined reports whether paths must stay inside the directory.
func (d *Dir) Confined() bool { return d != nil && d.policy.Confined }

// Path returns where a path the landscape names lies. In confined mode a path that is absolute,
// leaves the directory with "..", or resolves through a symbolic link to a place outside it is
// an error wrapping ErrOutside; a path that does not exist yet is judged by its name alone (a
// read of it fails later).
func (d *Dir) Path(name string) (string, error) {
	d = d.orWorkingDir()
	if !d.policy.Confined {
		if filepath.IsAbs(name) {
			return name, nil
		}
		return filepath.Join(d.root, name), nil
	}
	if _, err := d.inside(name); err != nil {
		return "", err
	}
	return filepath.Join(d.root, name), nil
}

// inside checks a path in confined mode and returns its resolved location.
func (d *Dir) inside(name string) (string, error) {
	if filepath.IsAbs(name) {
		return "", fmt.Errorf("%s is an absolute path: %w", name, ErrOutside)
	}
	full := filepath.Join(d.root, name)
	if !within(filepath.Clean(d.root), full) {
		return "", fmt.Errorf("%s leaves the landscape directory: %w", name, ErrOutside)
	}
	root, err := d.real()
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Nothing to resolve: the read that follows reports the missing file. A dangling link
		// is judged when it resolves to something, which is never.
		return full, nil
	case err != nil:
		return "", fmt.Errorf("cannot resolve %s: %w", name, unwrapPathError(err))
	case !within(root, real):
		return "", fmt.Errorf("%s is a symbolic link to %s, outside the landscape directory: %w", name, real, ErrOutside)
	}
	return real, nil
}

// real is the landscape directory with its symbolic links resolved (a git-sync checkout is a
// link to the current worktree).
func (d *Dir) real() (string, error) {
	d.realOnce.Do(func() {
		d.realRoot, d.realErr = filepath.EvalSymlinks(d.root)
		if d.realErr != nil {
			d.realErr = fmt.Errorf("landscape directory %s: %w", d.root, unwrapPathError(d.realErr))
		}
	})
	return d.realRoot, d.realErr
}

// within reports whether path lies in dir (or is dir); both are clean.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ReadFile returns the contents of the regular file at a path the landscape names. In confined
// mode the file is opened through an os.Root of the landscape directory, which resolves the path
// and its links inside the directory in the same step as it opens the file, so that a link
// swapped in after the check cannot lead the read out either.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	d = d.orWorkingDir()
	path, err := d.Path(name)
	if err != nil {
		return nil, err
	}
	if !d.policy.Confined {
		return ReadRegular(path)
	}
	root, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, describe(d.root, err)
	}
	defer root.Close()
	f, err := root.OpenFile(filepath.Clean(name), os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notExist(path)
		}
		return nil, fmt.Errorf("cannot read %s: %w: %w", name, unwrapPathError(err), ErrOutside)
	}
	defer f.Close()
	return readOpen(path, f)
}

// IsDir reports whether a path the landscape names is a directory (a chart directory rather than
// an archive).
func (d *Dir) IsDir(name string) (bool, error) {
	d = d.orWorkingDir()
	path, err := d.Path(name)
	if err != nil {
		return false, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return false, describe(path, err)
	}
	return info.IsDir(), nil
}

// Tree returns where the directory a path names lies, for a reader that walks it itself (Helm
// loading a chart directory follows symbolic links). In confined mode every entry under it is
// checked first: a symbolic link anywhere in the tree that resolves outside the landscape
// directory is an error wrapping ErrOutside.
func (d *Dir) Tree(name string) (string, error) {
	d = d.orWorkingDir()
	path, err := d.Path(name)
	if err != nil {
		return "", err
	}
	if !d.policy.Confined {
		return path, nil
	}
	root, err := d.real()
	if err != nil {
		return "", err
	}
	start, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", describe(path, err)
	}
	seen := map[string]bool{}
	var walk func(dir, shown string) error
	walk = func(dir, shown string) error {
		if seen[dir] {
			return nil // a link back up the tree: Helm's walk would loop, ours need not
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			return describe(shown, err)
		}
		for _, e := range entries {
			p, s := filepath.Join(dir, e.Name()), filepath.Join(shown, e.Name())
			if e.Type()&fs.ModeSymlink == 0 {
				if e.IsDir() {
					if err := walk(p, s); err != nil {
						return err
					}
				}
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return describe(s, err)
			}
			if !within(root, real) {
				return fmt.Errorf("%s is a symbolic link to %s, outside the landscape directory: %w", s, real, ErrOutside)
			}
			if info, err := os.Stat(real); err == nil && info.IsDir() {
				if err := walk(real, s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(start, name); err != nil {
		return "", err
	}
	return path, nil
}

// Kubeconfig returns the kubeconfig file a cluster block names. own says that the file is the
// landscape's: in confined mode it lies inside the landscape directory, and the caller must
// refuse what it would run or read (CheckKubeconfig). A file in one of the policy's
// KubeconfigDirs is the operator's and is used as it is; any other path is an error wrapping
// ErrOutside in confined mode.
//
// A name that starts with "~/" (or is "~") lies in the operator's home directory, as in a shell
// and in kubectl's --kubeconfig: cluster blocks are written for several operators, who each keep
// their kubeconfigs in their own home. In confined mode such a file is outside the landscape
// directory, so it is the operator's when it lies in one of the KubeconfigDirs and refused
// otherwise. "~user" is not expanded.
func (d *Dir) Kubeconfig(name string) (path string, own bool, err error) {
	name, err = expandHome(name)
	if err != nil {
		return "", false, err
	}
	if !d.policy.Confined {
		path, err := d.Path(name)
		return path, false, err
	}
	if _, err := d.inside(name); err == nil {
		return filepath.Join(d.root, name), true, nil
	} else if !errors.Is(err, ErrOutside) {
		return "", false, err
	}
	full := name
	if !filepath.IsAbs(full) {
		full = filepath.Join(d.root, name)
	}
	real, err := filepath.EvalSymlinks(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		real = filepath.Clean(full) // judged by its name; the connection reports it missing
	case err != nil:
		return "", false, describe(name, err)
	}
	for _, dir := range d.policy.KubeconfigDirs {
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			realDir = filepath.Clean(dir)
		}
		if within(realDir, real) || within(filepath.Clean(dir), filepath.Clean(full)) {
			return full, false, nil
		}
	}
	return "", false, fmt.Errorf("kubeconfig %s is outside the landscape directory and the operator's kubeconfig directories (%s): %w",
		name, listOrNone(d.policy.KubeconfigDirs), ErrOutside)
}

// expandHome replaces a leading "~" of a path naming the home directory ("~", "~/...") with the
// home directory ($HOME).
func expandHome(name string) (string, error) {
	if name != "~" && !strings.HasPrefix(name, "~/") {
		return name, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kubeconfig %s: %w", name, err)
	}
	return filepath.Join(home, name[1:]), nil
}

func listOrNone(dirs []string) string {
	if len(dirs) == 0 {
		return "none given"
	}
	return strings.Join(slices.Clone(dirs), ", ")
}

// ReadRegular reads the regular file at path, up to MaxFileSize: anything else (a directory, a
// device such as /dev/zero, a FIFO, a socket) is an error, and so is a larger file, so that no
// path can make a read block or exhaust memory. It is for paths the operator names too (variable
// files).
func ReadRegular(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, describe(path, err)
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	// Opened without blocking, so that a file swapped for a FIFO after the check cannot hang
	// the open; the check is repeated on the open file.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlocking, 0) // #nosec G304 -- the paths a landscape or the operator names, checked by the callers' policy
	if err != nil {
		return nil, describe(path, err)
	}
	defer f.Close()
	return readOpen(path, f)
}

// readOpen reads an open file that must be a regular file of at most MaxFileSize.
func readOpen(path string, f *os.File) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, describe(path, err)
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, describe(path, err)
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(path)
	}
	return data, nil
}

// regular refuses what is not a regular file of at most MaxFileSize.
func regular(path string, info fs.FileInfo) error {
	switch mode := info.Mode(); {
	case mode.IsDir():
		return fmt.Errorf("%s is a directory, not a file", path)
	case !mode.IsRegular():
		return fmt.Errorf("%s is not a regular file (it is %s); only regular files are read", path, kind(mode))
	case info.Size() > MaxFileSize:
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s is larger than %d MiB, the most a landscape may make gardener read", path, MaxFileSize>>20)
}

// kind names a file mode that is not a regular file.
func kind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file"
	}
}

// describe words an error of reading path.
func describe(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return notExist(path)
	}
	return fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
}

// notExist is the error of a path where no file exists; it is an fs.ErrNotExist.
type notExist string

func (p notExist) Error() string { return "no file exists at " + string(p) }
func (notExist) Unwrap() error   { return fs.ErrNotExist }

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
