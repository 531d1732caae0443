package openapi

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeFetcher serves documents from memory and counts requests.
type fakeFetcher struct {
	mu       sync.Mutex
	index    map[string]string
	docs     map[string][]byte
	indexErr error
	docErr   error

	indexCalls atomic.Int32
	docCalls   atomic.Int32
}

func (f *fakeFetcher) OpenAPIV3Index(context.Context) (map[string]string, error) {
	f.indexCalls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.indexErr != nil {
		return nil, f.indexErr
	}
	out := map[string]string{}
	for k, v := range f.index {
		out[k] = v
	}
	return out, nil
}

func (f *fakeFetcher) OpenAPIV3(_ context.Context, path string) ([]byte, error) {
	f.docCalls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.docErr != nil {
		return nil, f.docErr
	}
	doc, ok := f.docs[path]
	if !ok {
		return nil, errors.New("not found")
	}
	return doc, nil
}

const thingPath = "apis/example.com/v1"

var thingGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}

// thingDoc is a custom resource's document as the server publishes it (descriptions included).
const thingDoc = `{
  "openapi": "3.0.0",
  "paths": {"/apis/example.com/v1/things": {}},
  "components": {"schemas": {
    "com.example.v1.Thing": {
      "description": "A thing.",
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
      "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "spec": {"type": "object", "properties": {
          "description": {"type": "string", "description": "a field named description"},
          "region": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}]},
          "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {
              "name": {"type": "string"},
              "id": {"type": "string", "x-kubernetes-validations": [{"rule": "oldSelf==self"}]}}}}
        }}
      }
    }
  }}
}`

func thingFetcher(hash string) *fakeFetcher {
	return &fakeFetcher{
		index: map[string]string{thingPath: "/openapi/v3/" + thingPath + "?hash=" + hash},
		docs:  map[string][]byte{thingPath: []byte(thingDoc)},
	}
}

func TestTypeIsFetchedOnceAndCachedByHash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := thingFetcher("AAA")

	s := New(f, dir)
	typ, err := s.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source())
	_, err = s.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, int32(1), f.docCalls.Load(), "one fetch per run")
	assert.Equal(t, int32(1), f.indexCalls.Load())
	assert.FileExists(t, s.cache.file(thingPath, "AAA"))

	// The next run finds the unchanged document in the cache.
	typ, err = New(f, dir).Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceCache, typ.Source())
	assert.Equal(t, int32(1), f.docCalls.Load(), "an unchanged document is never refetched")

	// A changed schema has a new hash and is fetched again.
	f.index[thingPath] = "/openapi/v3/" + thingPath + "?hash=BBB"
	typ, err = New(f, dir).Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source())
	assert.Equal(t, int32(2), f.docCalls.Load())
}

func TestCorruptCacheEntryIsRefetched(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := thingFetcher("AAA")
	s := New(f, dir)
	require.NoError(t, os.WriteFile(s.cache.file(thingPath, "AAA"), []byte(`{"components": {"schem`), 0o644))

	typ, err := s.Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceServer, typ.Source())
	assert.Equal(t, int32(1), f.docCalls.Load())

	typ, err = New(f, dir).Type(ctx, thingGVK)
	require.NoError(t, err)
	assert.Equal(t, SourceCache, typ.Source(), "the refetch repaired the entry")
}

func TestEmbeddedFallback(t *testing.T) {
	ctx := context.Background()
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	tests := []struct {
		name      string
		fetcher   *fakeFetcher
		gvk       schema.GroupVersionKind
		want      Source
		wantErr   string
		wantFetch int32
	}{
		{name: "server unreachable", fetcher: &fakeFetcher{indexErr: errors.New("connection refused")},
			gvk: deployment, want: SourceEmbedded},
		{name: "custom resource needs the server", fetcher: &fakeFetcher{indexErr: errors.New("connection refused")},
			gvk: thingGVK, wantErr: "connection refused"},
		{name: "built-in path not served", fetcher: &fakeFetcher{index: map[string]string{}},
			gvk: deployment, want: SourceEmbedded},
		{name: "unknown path not served", fetcher: &fakeFetcher{index: map[string]string{}},
			gvk: thingGVK, wantErr: "does not serve it"},
		{name: "document fetch fails", fetcher: &fakeFetcher{
			index: map[string]string{"apis/apps/v1": "/openapi/v3/apis/apps/v1?hash=OTHER"}, docErr: errors.New("timeout")},
			gvk: deployment, want: SourceEmbedded, wantFetch: 1},
		{name: "embedded hash announced", fetcher: &fakeFetcher{
			index: map[string]string{"apis/apps/v1": "/openapi/v3/apis/apps/v1?hash=" + embeddedHashOf(t, "apis/apps/v1")}},
			gvk: deployment, want: SourceEmbedded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := New(tt.fetcher, t.TempDir()).Type(ctx, tt.gvk)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, typ.Source())
			assert.Equal(t, tt.wantFetch, tt.fetcher.docCalls.Load())
		})
	}
}

func embeddedHashOf(t *testing.T, path string) string {
	t.Helper()
	idx, err := EmbeddedPaths()
	require.NoError(t, err)
	require.NotEmpty(t, idx[path])
	return idx[path]
}

func TestOfflineServesEveryEmbeddedGroupVersion(t *testing.T) {
	idx, err := EmbeddedPaths()
	require.NoError(t, err)
	for _, p := range []string{"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1",
		"apis/apiextensions.k8s.io/v1", "apis/networking.k8s.io/v1", "apis/storage.k8s.io/v1"} {
		assert.Contains(t, idx, p)
	}
	s := New(nil, "")
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Group: "apps", Version: "v1", Kind: "StatefulSet"},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	} {
		typ, err := s.Type(context.Background(), gvk)
		require.NoError(t, err, gvk)
		assert.Equal(t, SourceEmbedded, typ.Source())
	}
}

func TestDocumentsAreLoadedLazilyAndOnce(t *testing.T) {
	f := thingFetcher("AAA")
	f.index["api/v1"] = "/openapi/v3/api/v1?hash=X"
	s := New(f, "")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Type(context.Background(), thingGVK)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), f.docCalls.Load(), "api/v1 is not fetched: no core kind was asked for")
	assert.Equal(t, int32(1), f.indexCalls.Load())
}

func TestTransitionImmutable(t *testing.T) {
	typ, err := New(thingFetcher("AAA"), "").Type(context.Background(), thingGVK)
	require.NoError(t, err)
	var got []string
	for _, p := range typ.TransitionImmutable() {
		got = append(got, p.String())
	}
	assert.Equal(t, []string{".spec.items[*].id", ".spec.region"}, got)
}

func TestCompact(t *testing.T) {
	out, err := Compact([]byte(thingDoc))
	require.NoError(t, err)
	s := string(out)
	assert.NotContains(t, s, "A thing.")
	assert.NotContains(t, s, "a field named description")
	assert.NotContains(t, s, "paths")
	assert.Contains(t, s, `"description":{"type":"string"}`, "a property named description survives")
	models, err := decodeModels(out)
	require.NoError(t, err)
	assert.Contains(t, models, "com.example.v1.Thing")

	_, err = Compact([]byte(`{"openapi": "3.0.0"}`))
	assert.ErrorContains(t, err, "no components.schemas")
}

func TestTypeConverter(t *testing.T) {
	typ, err := New(nil, "").Type(context.Background(), schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	require.NoError(t, err)
	u := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"k": "v"}}
	tv, err := typ.Parseable().FromUnstructured(u)
	require.NoError(t, err)
	obj, err := typ.TypedToObject(tv)
	require.NoError(t, err)
	assert.Equal(t, "ConfigMap", obj.GetObjectKind().GroupVersionKind().Kind)

	tv, err = typ.ObjectToTyped(&unstructured.Unstructured{Object: u})
	require.NoError(t, err)
	assert.NotNil(t, tv)
	_, err = typ.ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}})
	assert.ErrorContains(t, err, "cannot type an object of kind")

	_, err = typ.Parseable().FromUnstructured(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "spec": map[string]any{}})
	assert.Error(t, err, "unknown fields are rejected as the server rejects them")
}
