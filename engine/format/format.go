// Package format gives landscape files their canonical layout (hclwrite's, the one Terraform users
// know) and finds the files a `gardener fmt` invocation covers.
package format

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/declarative-gardener/gardener/engine/limits"
	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// Extension is the file name ending of landscape files in native syntax. JSON-syntax files
// (*.hcl.json) have no canonical layout and are left alone.
const Extension = ".hcl"

// Source returns src in canonical layout, and the parsed file for rendering diagnostics. Syntax
// errors are returned as diagnostics and src is not formatted: hclwrite would lay out broken input
// in surprising ways.
func Source(src []byte, filename string) ([]byte, *hcl.File, hcl.Diagnostics) {
	// fmt --check runs in CI on pull requests: nesting that would overflow the parser's stack is
	// refused before parsing (engine/limits).
	if diags := limits.HCL(src, filename, hcl.InitialPos, false); diags.HasErrors() {
		return nil, nil, diags
	}
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, file, diags
	}
	return hclwrite.Format(src), file, nil
}

// Changed reports whether formatting changes src.
func Changed(src, formatted []byte) bool { return !bytes.Equal(src, formatted) }

// Files expands paths into the landscape files they name, sorted and without duplicates: a file
// is taken as it is (whatever its extension, since the user named it); a directory contributes
// its *.hcl files, and with recursive those of every subdirectory except hidden ones.
func Files(paths []string, recursive bool) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			files = append(files, path)
		}
	}
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("fmt path %s: %w", path, err)
		}
		if !info.IsDir() {
			add(filepath.Clean(path))
			continue
		}
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p == path {
					return nil
				}
				if !recursive || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), Extension) && d.Type().IsRegular() {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("fmt path %s: %w", path, err)
		}
	}
	sort.Strings(files)
	return files, nil
}

// ErrNotRegular is returned by WriteFile for paths that are not regular files.
var ErrNotRegular = errors.New("not a regular file")

// WriteFile replaces path's content atomically (a temporary file in the same directory, then a
// rename), keeping its permissions, so an interrupted fmt never leaves half a file.
func WriteFile(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("write %s: %w", path, ErrNotRegular)
	}
	if err := atomicfile.Write(path, data, info.Mode().Perm()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
