package openapi

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// roundTrip compiles a parsed group and decodes it again, as a later run reads it from disk.
func roundTrip(t *testing.T, g *group) *group {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, gob.NewEncoder(&buf).Encode(compile(g)))
	var c compiledGroup
	require.NoError(t, gob.NewDecoder(&buf).Decode(&c))
	out, err := c.group(g.source)
	require.NoError(t, err)
	return out
}

// A compiled group must type objects exactly as the parsed document does: the same
// structured-merge-diff types, the same kinds and the same transition rules, for every embedded
// document and for a custom resource with rules.
func TestCompiledGroupsEqualParsedOnes(t *testing.T) {
	idx, err := EmbeddedPaths()
	require.NoError(t, err)
	docs := map[string][]byte{}
	for path := range idx {
		data, ok, err := EmbeddedDocument(path)
		require.NoError(t, err)
		require.True(t, ok)
		docs[path] = data
	}
	thing, err := Compact([]byte(thingDoc))
	require.NoError(t, err)
	docs[thingPath] = thing
	rules := 0
	for path, data := range docs {
		parsed, err := parseGroup(data, SourceEmbedded)
		require.NoError(t, err, path)
		compiled := roundTrip(t, parsed)
		assert.Nil(t, compiled.models, "a compiled group needs no models")
		assert.Equal(t, parsed.parser.Schema.Types, compiled.parser.Schema.Types, path)
		assert.Equal(t, parsed.kinds, compiled.kinds, path)
		for gvk, model := range parsed.kinds {
			want := parsed.transitionsOf(model)
			rules += len(want)
			assert.Equal(t, want, compiled.transitionsOf(model), "%s %s", path, gvk)
		}
	}
	assert.Positive(t, rules, "some kinds have transition rules, which the compiled form keeps")
}

func TestCompiledFormIsCachedByHash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := thingFetcher("AAA")
	s := New(f, dir)
	typ, err := s.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source())
	compiledFile := s.cache.compiledFile(thingPath, "AAA")
	assert.FileExists(t, compiledFile)

	// The next run decodes the compiled form: the document is neither fetched nor parsed.
	require.NoError(t, os.Remove(s.cache.file(thingPath, "AAA")))
	next := New(f, dir)
	typ, err = next.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceCache, typ.Source())
	assert.Nil(t, next.groups[thingPath].group.models, "read compiled, not parsed")
	assert.Equal(t, int32(1), f.docCalls.Load())
	assert.Equal(t, []string{".spec.items[*].id", ".spec.region"}, patternStrings(typ.TransitionImmutable()))

	// A corrupt compiled file is compiled again from the document.
	require.NoError(t, os.WriteFile(compiledFile, []byte("not gob"), 0o600))
	typ, err = New(f, dir).Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source(), "neither compiled form nor document in the cache: fetched")
	assert.Equal(t, []string{".spec.items[*].id", ".spec.region"}, patternStrings(typ.TransitionImmutable()))
	again := New(f, dir)
	_, err = again.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Nil(t, again.groups[thingPath].group.models, "the compiled file was written again")

	// A changed document has another hash and is compiled anew.
	f.index[thingPath] = "/openapi/v3/" + thingPath + "?hash=BBB"
	typ, err = New(f, dir).Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source())
	assert.FileExists(t, s.cache.compiledFile(thingPath, "BBB"))
}

func TestEmbeddedDocumentsAreCachedCompiled(t *testing.T) {
	dir := t.TempDir()
	configMap := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	first := New(nil, dir)
	typ, err := first.Type(context.Background(), configMap)
	require.NoError(t, err)
	assert.Equal(t, SourceEmbedded, typ.Source())
	assert.NotNil(t, first.groups["api/v1"].group.models, "parsed on the first run")

	second := New(nil, dir)
	typ, err = second.Type(context.Background(), configMap)
	require.NoError(t, err)
	assert.Equal(t, SourceEmbedded, typ.Source())
	assert.Nil(t, second.groups["api/v1"].group.models, "compiled on the second")
	_, err = typ.Parseable().FromUnstructured(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"k": "v"}})
	require.NoError(t, err)

	// Without a cache directory nothing is written and every run parses.
	none := New(nil, "")
	_, err = none.Type(context.Background(), configMap)
	require.NoError(t, err)
	assert.NotNil(t, none.groups["api/v1"].group.models)
}

func patternStrings(ps []Pattern) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.String())
	}
	slices.Sort(out)
	return out
}
