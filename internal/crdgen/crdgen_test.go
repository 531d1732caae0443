package crdgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const manifest = `# a comment the generator drops
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.17.3
  name: widgets.example.com
spec:
  names:
    kind: Widget
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec: {}
`

func TestSplitDocumentsNamesEachCRD(t *testing.T) {
	docs, err := splitDocuments([]byte(manifest))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, "widgets.example.com", docs[0].name)
	assert.Equal(t, "gadgets.example.com", docs[1].name)
	assert.NotContains(t, string(docs[0].body), "# a comment")

	picked, err := pick(docs, []string{"gadgets.example.com"})
	require.NoError(t, err)
	assert.Equal(t, []document{docs[1]}, picked)
	_, err = pick(docs, []string{"nothings.example.com"})
	assert.ErrorContains(t, err, "no crd nothings.example.com")

	_, err = splitDocuments([]byte("apiVersion: v1\nkind: ConfigMap\n"))
	assert.ErrorContains(t, err, "without metadata.name")
}

// Gardener's generation puts a new labels map first in metadata and a new annotation first in
// the existing annotations (hack/generate-crds.sh -l and -k).
func TestFinishAddsGardenersMetadataWhereGardenerDoes(t *testing.T) {
	docs, err := splitDocuments([]byte(manifest))
	require.NoError(t, err)
	src := Source{DeletionProtected: true, Unprotected: []string{"gadgets.example.com"}, KeepObject: true, ShippedAs: "somewhere"}
	widget, err := finish(docs[0], src, "a module")
	require.NoError(t, err)
	assert.Equal(t, GeneratedMarker+`
# From a module.
# Gardener v1.120.0 applies the same CRD: somewhere.
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  labels:
    gardener.cloud/deletion-protected: "true"
  annotations:
    resources.gardener.cloud/keep-object: "true"
    controller-gen.kubebuilder.io/version: v0.17.3
  name: widgets.example.com
spec:
  names:
    kind: Widget
`, string(widget))

	gadget, err := finish(docs[1], src, "a module")
	require.NoError(t, err)
	assert.NotContains(t, string(gadget), "deletion-protected", "unprotected")
	assert.Contains(t, string(gadget), "metadata:\n  annotations:\n    resources.gardener.cloud/keep-object: \"true\"\n  name: gadgets.example.com\n")
}

func TestUntoleratedKeepsOnlyUnknownMessages(t *testing.T) {
	out := "types.go:423:20: map keys must be strings, not int\nError: not all generators ran successfully\n\nsomething else broke\n"
	assert.Equal(t, []string{"something else broke"}, untolerated(out, []string{"map keys must be strings", "not all generators ran successfully"}))
}

func TestFileName(t *testing.T) {
	assert.Equal(t, "extensions.gardener.cloud_workers.yaml", FileName("workers.extensions.gardener.cloud"))
}

// A worktree sits deeper than the clone: the source is found beside any directory above it.
func TestGardenerSourceBesideAnAncestor(t *testing.T) {
	t.Setenv(SourceEnv, "")
	top := t.TempDir()
	root := filepath.Join(top, "worktrees", "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tests", "tools", "gardener"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "tests", "tools", "gardener", "VERSION"), []byte("v1.120.0\n"), 0o644))

	_, err := GardenerSource(root)
	assert.ErrorContains(t, err, "gardener v1.120.0 source not found")

	source := filepath.Join(top, "shared", "gardener-v1.120.0")
	require.NoError(t, os.MkdirAll(source, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(source, "VERSION"), []byte("v1.119.0\n"), 0o644))
	_, err = GardenerSource(root)
	assert.ErrorContains(t, err, "is v1.119.0, the pin is v1.120.0")

	require.NoError(t, os.WriteFile(filepath.Join(source, "VERSION"), []byte("v1.120.0\n"), 0o644))
	got, err := GardenerSource(root)
	require.NoError(t, err)
	assert.Equal(t, source, got)
}
