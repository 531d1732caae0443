package observe_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/openapi"
)

// The empty cluster serves the built-in Kubernetes API and the Gardener API, holds nothing, and
// announces the embedded documents' hashes, so that every schema comes from the binary.
func TestEmptyCluster(t *testing.T) {
	ctx := context.Background()
	c, err := observe.EmptyCluster()
	require.NoError(t, err)
	version, err := c.ServerVersion(ctx)
	require.NoError(t, err)
	assert.Regexp(t, `^v1\.\d+\.\d+$`, version)

	resources, err := c.Resources(ctx)
	require.NoError(t, err)
	served := map[schema.GroupKind]observe.Resource{}
	for _, r := range resources {
		served[r.GroupKind()] = r
	}
	for _, tc := range []struct {
		gk         schema.GroupKind
		resource   string
		namespaced bool
	}{
		{schema.GroupKind{Kind: "Namespace"}, "namespaces", false},
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, "deployments", true},
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "Shoot"}, "shoots", true},
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "Seed"}, "seeds", false},
		{schema.GroupKind{Group: "seedmanagement.gardener.cloud", Kind: "ManagedSeed"}, "managedseeds", true},
	} {
		r, ok := served[tc.gk]
		if assert.True(t, ok, "%s is served", tc.gk) {
			assert.Equal(t, tc.resource, r.Resource)
			assert.Equal(t, tc.namespaced, r.Namespaced)
		}
	}
	for _, gk := range []schema.GroupKind{
		{Group: "resources.gardener.cloud", Kind: "ManagedResource"},
		{Group: "druid.gardener.cloud", Kind: "Etcd"},
		{Group: "operator.gardener.cloud", Kind: "Garden"},
	} {
		assert.NotContains(t, served, gk, "%s is a CRD's: an empty cluster does not serve it", gk)
	}

	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	items, err := c.List(ctx, deployments, "", "declarative-gardener.io/landscape=x")
	require.NoError(t, err)
	assert.Empty(t, items)
	obj, err := c.Get(ctx, deployments, "garden", "x")
	require.NoError(t, err)
	assert.Nil(t, obj)

	observed, err := observe.Observe(ctx, c, observe.Request{
		Selector: "declarative-gardener.io/landscape=x",
		Desired:  []object.Ref{{Group: "apps", Kind: "Deployment", Namespace: "garden", Name: "x"}, {Kind: "Namespace", Name: "garden"}},
	})
	require.NoError(t, err)
	assert.Empty(t, observed.Objects)

	index, err := c.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	embedded, err := openapi.EmbeddedPaths()
	require.NoError(t, err)
	require.Len(t, index, len(embedded))
	for path, hash := range embedded {
		assert.Equal(t, "/openapi/v3/"+path+"?hash="+hash, index[path])
	}
	shoot, err := openapi.New(c, "").Type(ctx, schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"})
	require.NoError(t, err)
	assert.Equal(t, openapi.SourceEmbedded, shoot.Source())
}
