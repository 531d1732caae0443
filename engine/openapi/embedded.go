package openapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// builtinFS holds the compacted documents of the built-in Kubernetes group versions and of the
// Gardener API gardener-apiserver serves, gzipped, one file per path
// (builtin/apis/apps/v1.json.gz), plus builtin/index.json mapping each path to the hash the
// server announced for it. Regenerate with `go run ./tests/openapigen`.
//
//go:embed builtin
var builtinFS embed.FS

var (
	builtinOnce  sync.Once
	builtinIndex map[string]string
	builtinErr   error
)

// embeddedIndex returns the embedded paths and their hashes.
func embeddedIndex() (map[string]string, error) {
	builtinOnce.Do(func() {
		data, err := builtinFS.ReadFile("builtin/index.json")
		if err != nil {
			builtinErr = fmt.Errorf("embedded openapi index: %w", err)
			return
		}
		if err := json.Unmarshal(data, &builtinIndex); err != nil {
			builtinErr = fmt.Errorf("embedded openapi index: %w", err)
		}
	})
	return builtinIndex, builtinErr
}

// embeddedDocument returns the compacted embedded document of a path, or false when the path is
// not built in.
func embeddedDocument(path string) ([]byte, bool, error) {
	idx, err := embeddedIndex()
	if err != nil {
		return nil, false, err
	}
	if _, ok := idx[path]; !ok {
		return nil, false, nil
	}
	gz, err := builtinFS.ReadFile("builtin/" + path + ".json.gz")
	if err != nil {
		return nil, false, fmt.Errorf("embedded openapi %s: %w", path, err)
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, false, fmt.Errorf("embedded openapi %s: %w", path, err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, false, fmt.Errorf("embedded openapi %s: %w", path, err)
	}
	return data, true, nil
}

// EmbeddedDocument returns the compacted embedded document of a path ("apis/apps/v1"), or false
// when it is not embedded.
func EmbeddedDocument(path string) ([]byte, bool, error) { return embeddedDocument(path) }

// EmbeddedPaths lists the built-in group version paths compiled into the binary, with the hash
// the generating server announced for each.
func EmbeddedPaths() (map[string]string, error) {
	idx, err := embeddedIndex()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(idx))
	for k, v := range idx {
		out[k] = v
	}
	return out, nil
}
