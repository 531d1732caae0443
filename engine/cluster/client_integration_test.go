package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// crd returns a minimal namespaced CustomResourceDefinition of kind in group.
func crd(group, kind, plural string) []byte {
	return []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.` + group + `
spec:
  group: ` + group + `
  scope: Namespaced
  names: {kind: ` + kind + `, plural: ` + plural + `, singular: ` + plural[:len(plural)-1] + `, listKind: ` + kind + `List}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`)
}

// TestMapperLearnsKindOfCRDAppliedInSameRun is what apply relies on: a Client that discovered
// the server before a CRD was applied maps the CRD's kind afterwards without being rebuilt.
func TestMapperLearnsKindOfCRDAppliedInSameRun(t *testing.T) {
	counter := &requestCounter{}
	c := runtimeClient(t, counter, cluster.Options{})
	ctx := context.Background()
	gk := schema.GroupKind{Group: "mapper-test.example.com", Kind: "Widget"}

	_, err := c.Mapper().RESTMapping(gk)
	require.True(t, meta.IsNoMatchError(err), "unknown before the CRD: %v", err)
	resources, err := c.Resources(ctx)
	require.NoError(t, err)
	for _, r := range resources {
		require.NotEqual(t, gk, r.GroupKind())
	}

	admin := localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
	require.NoError(t, localcluster.ApplyCRDs(ctx, admin, [][]byte{crd(gk.Group, gk.Kind, "widgets")}))
	// Established comes a moment before discovery serves the new group; the Client's own
	// refresh is counted once the server serves it.
	served, err := discovery.NewDiscoveryClientForConfig(admin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := served.ServerResourcesForGroupVersion(gk.Group + "/v1")
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "the server serves %s", gk.Group)

	counter.reset()
	mapping, err := c.Mapper().RESTMapping(gk)
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionResource{Group: gk.Group, Version: "v1", Resource: "widgets"}, mapping.Resource)
	assert.Equal(t, meta.RESTScopeNameNamespace, mapping.Scope.Name())
	assert.LessOrEqual(t, counter.total.Load(), int64(2), "one discovery refresh:\n%s", counter.summary())

	counter.reset()
	_, err = c.Mapper().RESTMapping(gk)
	require.NoError(t, err)
	assert.Zero(t, counter.total.Load(), "known kinds map from the cache")
}

// TestObserveSeesKindOfCRDAppliedInSameRun: a pending kind is unserved, costs no LIST, and once
// its CRD exists the same Client observes it although its discovery was cached before.
func TestObserveSeesKindOfCRDAppliedInSameRun(t *testing.T) {
	c := runtimeClient(t, nil, cluster.Options{})
	ctx := context.Background()
	gk := schema.GroupKind{Group: "observe-test.example.com", Kind: "Gadget"}
	createNamespaces(t, c, "obs-crd")
	req := observe.Request{
		Selector: inventoryLabel + "=observe-crd",
		Desired:  []object.Ref{{Group: gk.Group, Kind: gk.Kind, Namespace: "obs-crd", Name: "one"}},
		Pending:  map[schema.GroupKind]bool{gk: true},
	}
	before, err := observe.Observe(ctx, c, req)
	require.NoError(t, err)
	assert.Equal(t, map[schema.GroupKind]bool{gk: true}, before.Unserved)
	assert.Equal(t, observe.Requests{Discovery: 2}, before.Requests, "refreshed once, then no reads for the pending kind")

	require.NoError(t, localcluster.ApplyCRDs(ctx, localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig(),
		[][]byte{crd(gk.Group, gk.Kind, "gadgets")}))
	gadget := &unstructured.Unstructured{}
	gadget.SetAPIVersion(gk.Group + "/v1")
	gadget.SetKind(gk.Kind)
	gadget.SetNamespace("obs-crd")
	gadget.SetName("one")
	gadget.SetLabels(map[string]string{inventoryLabel: "observe-crd"})
	createAll(t, c, []created{{gvr: schema.GroupVersionResource{Group: gk.Group, Version: "v1", Resource: "gadgets"}, obj: gadget}})

	after, err := observe.Observe(ctx, c, req)
	require.NoError(t, err)
	assert.Empty(t, after.Unserved)
	assert.Equal(t, []object.Ref{req.Desired[0]}, after.Inventory)
	assert.Equal(t, observe.Requests{Discovery: 2, Lists: 1}, after.Requests)
}

// TestDiscoveryIsCachedOnDisk: a second Client (the next CLI run) reads discovery from disk and
// asks the server again only after a refresh.
func TestDiscoveryIsCachedOnDisk(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first := runtimeClient(t, nil, cluster.Options{CacheDir: dir})
	want, err := first.Resources(ctx)
	require.NoError(t, err)

	counter := &requestCounter{}
	second := runtimeClient(t, counter, cluster.Options{CacheDir: dir})
	got, err := second.Resources(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Zero(t, counter.total.Load(), counter.summary())

	second.RefreshMapper()
	_, err = second.Resources(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), counter.total.Load(), "aggregated discovery: /api and /apis\n%s", counter.summary())

	// Resources are preferred versions of main resources only.
	seen := map[schema.GroupKind]bool{}
	for _, r := range got {
		assert.NotContains(t, r.Resource, "/")
		assert.False(t, seen[r.GroupKind()], "kind %v listed twice", r.GroupKind())
		seen[r.GroupKind()] = true
		assert.NotEmpty(t, r.Verbs)
	}
	assert.True(t, seen[schema.GroupKind{Group: "apps", Kind: "Deployment"}])
}

func TestDryRunApplyPersistsNothing(t *testing.T) {
	c := runtimeClient(t, nil, cluster.Options{})
	ctx := context.Background()
	createNamespaces(t, c, "obs-dry")
	cm := &unstructured.Unstructured{Object: map[string]interface{}{"data": map[string]interface{}{"k": "v"}}}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace("obs-dry")
	cm.SetName("dry")
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

	out, err := c.DryRunApply(ctx, gvr, cm, "gardener", true)
	require.NoError(t, err)
	assert.Equal(t, "dry", out.GetName())
	require.Len(t, out.GetManagedFields(), 1)
	assert.Equal(t, "gardener", out.GetManagedFields()[0].Manager)

	got, err := c.Get(ctx, gvr, "obs-dry", "dry")
	require.NoError(t, err)
	assert.Nil(t, got, "a dry run creates nothing")

	bad := cm.DeepCopy()
	bad.Object["data"] = map[string]interface{}{"k": int64(1)}
	began := time.Now()
	_, err = c.DryRunApply(ctx, gvr, bad, "gardener", true)
	require.Error(t, err)
	assert.Less(t, time.Since(began), time.Second, "a rejected object is not retried: %#v", err)
	assert.Contains(t, err.Error(), "dry-run apply configmaps/v1 obs-dry/dry: ")
}

func TestServerVersionAndOpenAPI(t *testing.T) {
	counter := &requestCounter{}
	c := runtimeClient(t, counter, cluster.Options{})
	ctx := context.Background()
	v, err := c.ServerVersion(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, v) // the locally built kube-apiserver reports "v0.0.0-master+$Format:%H$"
	index, err := c.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	assert.Contains(t, index["api/v1"], "/openapi/v3/api/v1?hash=")
	doc, err := c.OpenAPIV3(ctx, "api/v1")
	require.NoError(t, err)
	assert.Contains(t, string(doc), `"openapi"`)

	counter.reset()
	_, err = c.ServerVersion(ctx)
	require.NoError(t, err)
	_, err = c.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	again, err := c.OpenAPIV3(ctx, "api/v1")
	require.NoError(t, err)
	assert.Equal(t, doc, again)
	assert.Zero(t, counter.total.Load(), "cached for the run:\n%s", counter.summary())

	_, err = c.OpenAPIV3(ctx, "apis/nope/v1")
	assert.ErrorContains(t, err, `openapi v3 document "apis/nope/v1": not served by`)
}

func TestConnectErrors(t *testing.T) {
	_, err := cluster.Connect(cluster.Access{Kubeconfig: "/nonexistent/kubeconfig"}, cluster.Options{})
	assert.ErrorContains(t, err, "kubeconfig /nonexistent/kubeconfig (the cluster block's kubeconfig): the file does not exist")
	if testing.Short() {
		return
	}
	_, err = cluster.Connect(cluster.Access{Kubeconfig: localcluster.Shared(t).Kubeconfig(), Context: "nope"}, cluster.Options{})
	assert.ErrorContains(t, err, `context "nope" of kubeconfig `+localcluster.Shared(t).Kubeconfig()+` (the cluster block's kubeconfig): it has no such context`)
}
