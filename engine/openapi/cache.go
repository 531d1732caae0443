package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// diskCache stores compacted documents under the hash the server's index announces for them, so
// a file never needs invalidation: a changed document has a new hash and therefore a new file.
type diskCache struct{ dir string }

// file is the cache file of one document version: "apis_apps_v1@<hash>.json".
func (c diskCache) file(path, hash string) string {
	return filepath.Join(c.dir, strings.ReplaceAll(path, "/", "_")+"@"+hash+".json")
}

// read returns the cached document, or false when there is none (or no cache directory).
func (c diskCache) read(path, hash string) ([]byte, bool) {
	if c.dir == "" || hash == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.file(path, hash))
	if err != nil {
		return nil, false
	}
	return data, true
}

// write stores a document atomically: readers see either no file or the complete one, also when
// several processes share the directory.
func (c diskCache) write(path, hash string, data []byte) error {
	if c.dir == "" || hash == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("openapi cache: %w", err)
	}
	if err := atomicfile.Write(c.file(path, hash), data, 0o600); err != nil {
		return fmt.Errorf("openapi cache: %w", err)
	}
	return nil
}
