package diff

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/openapi"
)

// TestEmbeddedSchemasAreCurrent fails when the local control plane serves built-in documents
// other than the embedded ones: then regenerate them with `go run ./tests/openapigen`.
func TestEmbeddedSchemasAreCurrent(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	index, err := env.fetcher.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	embedded, err := openapi.EmbeddedPaths()
	require.NoError(t, err)
	for path, hash := range embedded {
		url, ok := index[path]
		if assert.True(t, ok, "%s is embedded but not served", path) {
			assert.Contains(t, url, "hash="+hash, "%s changed: regenerate the embedded documents", path)
		}
	}

	s := openapi.New(env.fetcher, t.TempDir())
	deployment, err := s.Type(ctx, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	assert.Equal(t, openapi.SourceEmbedded, deployment.Source(), "an announced embedded hash needs no fetch")
	etcd, err := s.Type(ctx, schema.GroupVersionKind{Group: "druid.gardener.cloud", Version: "v1alpha1", Kind: "Etcd"})
	require.NoError(t, err)
	assert.Equal(t, openapi.SourceServer, etcd.Source())
	widget, err := s.Type(ctx, schema.GroupVersionKind{Group: "difftest.gardener.cloud", Version: "v1", Kind: "Widget"})
	require.NoError(t, err)
	require.Len(t, widget.TransitionImmutable(), 1, "the published schema keeps x-kubernetes-validations")
	assert.Equal(t, ".spec.region", widget.TransitionImmutable()[0].String())
}
