package catalog

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/schema"
)

var update = flag.Bool("update", false, "regenerate docs/components")

// docsDir holds the generated reference pages, one per schema, and an index.
var docsDir = filepath.Join("..", "..", "docs", "components")

// generatedDocs returns every page the catalog implies, by file name.
func generatedDocs() map[string][]byte {
	docs := map[string][]byte{}
	var index bytes.Buffer
	index.WriteString("# Component reference\n\n")
	index.WriteString("Generated from the schemas in `components/*/schema.go` by `make docs`; a test fails when these pages are stale.\n")
	index.WriteString("`gardener components TYPE` prints the same page.\n\n")
	index.WriteString("| kind | type | summary |\n|---|---|---|\n")
	for _, s := range Schemas().All() {
		name := s.Type + ".md"
		docs[name] = schema.Markdown(s)
		fmt.Fprintf(&index, "| %s | [%s](%s) | %s |\n", s.Kind, s.Type, name, s.Summary())
	}
	docs["README.md"] = index.Bytes()
	return docs
}

// TestComponentDocsAreCurrent fails when docs/components does not match the catalog; run
// `make docs` (go test ./components/catalog -run TestComponentDocsAreCurrent -update) to regenerate.
func TestComponentDocsAreCurrent(t *testing.T) {
	want := generatedDocs()
	if *update {
		require.NoError(t, os.RemoveAll(docsDir))
		require.NoError(t, os.MkdirAll(docsDir, 0o755))
		for name, data := range want {
			require.NoError(t, os.WriteFile(filepath.Join(docsDir, name), data, 0o644))
		}
	}
	entries, err := os.ReadDir(docsDir)
	require.NoError(t, err, "run make docs")
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
		_, expected := want[e.Name()]
		assert.True(t, expected, "docs/components/%s documents nothing in the catalog; run make docs", e.Name())
	}
	for name, data := range want {
		if !have[name] {
			t.Errorf("docs/components/%s is missing; run make docs", name)
			continue
		}
		got, err := os.ReadFile(filepath.Join(docsDir, name))
		require.NoError(t, err)
		assert.Equal(t, string(data), string(got), "docs/components/%s is stale; run make docs", name)
	}
}
