package diff

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// gardenerGroups are the groups gardener-apiserver serves through the aggregation layer, whose
// documents are embedded beside the built-in ones.
func gardenerGroups() map[string]bool {
	out := map[string]bool{}
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		out[gv.Group] = true
	}
	return out
}

// TestEmbeddedSchemasAreCurrent fails when the local control plane serves built-in documents, or
// its virtual garden's gardener-apiserver Gardener API documents, other than the embedded ones:
// then regenerate them with `go run ./tests/openapigen`.
func TestEmbeddedSchemasAreCurrent(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	index, err := env.fetcher.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	virtualGarden, err := cluster.ConnectConfig(localcluster.Shared(t).Plane(localcluster.VirtualGardenPlane).RESTConfig(), cluster.Options{NoDiskCache: true})
	require.NoError(t, err)
	gardenerIndex, err := virtualGarden.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	embedded, err := openapi.EmbeddedPaths()
	require.NoError(t, err)
	gardener := gardenerGroups()
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		assert.Contains(t, embedded, openapi.PathOf(gv), "the Gardener API's documents are embedded")
	}
	for path, hash := range embedded {
		served := index
		if parts := strings.Split(path, "/"); len(parts) == 3 && gardener[parts[1]] {
			served = gardenerIndex
		}
		url, ok := served[path]
		if assert.True(t, ok, "%s is embedded but not served", path) {
			assert.Contains(t, url, "hash="+hash, "%s changed: regenerate the embedded documents", path)
		}
	}
	shoot, err := openapi.New(virtualGarden, t.TempDir()).Type(ctx, schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"})
	require.NoError(t, err)
	assert.Equal(t, openapi.SourceEmbedded, shoot.Source(), "gardener-apiserver's announced hash needs no fetch")

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

// TestEmptyClusterIsCurrent fails when the empty cluster offline plans read (observe.EmptyCluster)
// no longer is what the local control plane serves: the built-in resources of its runtime plane
// and the Gardener API of its virtual garden, by the same discovery the engine reads, with the
// OpenAPI index of the embedded documents. Regenerate it with `go run ./tests/openapigen`.
func TestEmptyClusterIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx := context.Background()
	c := localcluster.Shared(t)
	rec, err := observe.EmptyClusterRecording()
	require.NoError(t, err)
	runtime, err := cluster.ConnectConfig(c.Plane(localcluster.RuntimePlane).RESTConfig(), cluster.Options{NoDiskCache: true})
	require.NoError(t, err)
	virtualGarden, err := cluster.ConnectConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig(), cluster.Options{NoDiskCache: true})
	require.NoError(t, err)
	version, err := runtime.ServerVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, version, rec.ServerVersion)

	// The runtime plane of the shared cluster serves CRDs tests applied: the empty cluster serves
	// none, and its built-in groups are those whose documents are embedded.
	embedded, err := openapi.EmbeddedPaths()
	require.NoError(t, err)
	builtinGroups := map[string]bool{}
	for path := range embedded {
		if path == "api/v1" {
			builtinGroups[""] = true
		} else if parts := strings.Split(path, "/"); len(parts) == 3 {
			builtinGroups[parts[1]] = true
		}
	}
	gardener := gardenerGroups()
	var want []string
	for _, src := range []struct {
		c    *cluster.Client
		keep func(string) bool
	}{
		{runtime, func(g string) bool { return builtinGroups[g] && !gardener[g] }},
		{virtualGarden, func(g string) bool { return gardener[g] }},
	} {
		resources, err := src.c.Resources(ctx)
		require.NoError(t, err)
		for _, r := range resources {
			if src.keep(r.Group) {
				want = append(want, describeResource(r.Group, r.Version, r.Kind, r.Resource, r.Namespaced, r.Verbs))
			}
		}
	}
	var got []string
	for _, r := range rec.Resources {
		got = append(got, describeResource(r.Group, r.Version, r.Kind, r.Resource, r.Namespaced, r.Verbs))
	}
	sort.Strings(want)
	sort.Strings(got)
	assert.Equal(t, want, got, "the empty cluster's discovery is stale: regenerate it with go run ./tests/openapigen")
	wantIndex := map[string]string{}
	for path, hash := range embedded {
		wantIndex[path] = "/openapi/v3/" + path + "?hash=" + hash
	}
	assert.Equal(t, wantIndex, rec.OpenAPIIndex, "the empty cluster's OpenAPI index is that of the embedded documents")
}

func describeResource(group, version, kind, resource string, namespaced bool, verbs []string) string {
	return fmt.Sprintf("%s/%s %s %s namespaced=%t %v", group, version, kind, resource, namespaced, verbs)
}
