package observe_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
)

// A prefetched LIST stands in for the one Observe would make, and only for exactly that one.
func TestObserveTakesPrefetchedLists(t *testing.T) {
	cm, dep, ns := configMaps.GroupVersionKind, deploys.GroupVersionKind, namespaces.GroupVersionKind
	objects := []*unstructured.Unstructured{obj(cm, "a", "one", true), obj(dep, "a", "web", true), obj(ns, "", "a", true)}
	req := observe.Request{
		Selector: selector,
		Desired:  []object.Ref{ref(cm, "a", "one"), ref(dep, "a", "web"), ref(ns, "", "a")},
		Kinds:    []schema.GroupKind{cm.GroupKind(), dep.GroupKind(), ns.GroupKind()},
	}
	plain := &fakeCluster{resources: []observe.Resource{configMaps, deploys, namespaces}, objects: objects}
	want, err := observe.Observe(context.Background(), plain, req)
	require.NoError(t, err)

	f := &fakeCluster{resources: []observe.Resource{configMaps, deploys, namespaces}, objects: objects}
	// Kinds from state, one not served (Etcd): it is left to Observe.
	req.Prefetched = observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind(), dep.GroupKind(), etcds.GroupVersionKind.GroupKind()}, nil, 2)
	got, err := observe.Observe(context.Background(), f, req)
	require.NoError(t, err)
	assert.Equal(t, want.Objects, got.Objects, "the same objects as without prefetching")
	assert.Equal(t, want.Inventory, got.Inventory)
	assert.Equal(t, want.Requests, got.Requests, "a prefetched LIST counts as the LIST it replaces")
	assert.ElementsMatch(t, plain.lists, f.lists, "no LIST is made twice: Observe took the prefetched ones")

	// A second Observe of the same plan takes them again.
	f.lists = nil
	again, err := observe.Observe(context.Background(), f, req)
	require.NoError(t, err)
	assert.Equal(t, []string{"namespaces  " + selector}, f.lists, "only the kind not prefetched is listed again")
	assert.Equal(t, want.Objects, again.Objects)
}

// Get answers reads of single objects from the prefetched LISTs, with copies, and only where a
// LIST can answer them.
func TestPrefetchAnswersGetsOfListedObjects(t *testing.T) {
	cm := configMaps.GroupVersionKind
	f := &fakeCluster{resources: []observe.Resource{configMaps, deploys}, objects: []*unstructured.Unstructured{
		obj(cm, "a", "one", true), obj(cm, "a", "unlabelled", false),
	}}
	p := observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind()}, nil, 1)

	got, ok := p.Get(context.Background(), configMaps.GVR(), "a", "one")
	require.True(t, ok)
	assert.Equal(t, "one", got.GetName())
	got.SetLabels(nil) // the caller's copy
	again, ok := p.Get(context.Background(), configMaps.GVR(), "a", "one")
	require.True(t, ok)
	assert.NotEmpty(t, again.GetLabels(), "changing a copy changes nothing prefetched")

	_, ok = p.Get(context.Background(), configMaps.GVR(), "a", "unlabelled")
	assert.False(t, ok, "an object the labelled LIST did not return may exist unlabelled: the caller reads it")
	_, ok = p.Get(context.Background(), deploys.GVR(), "a", "web")
	assert.False(t, ok, "nothing of the resource was prefetched")
	var none *observe.Prefetch
	_, ok = none.Get(context.Background(), configMaps.GVR(), "a", "one")
	assert.False(t, ok)
	assert.Empty(t, f.gets, "Get never reads from the cluster")
}

func TestObserveReportsAPrefetchedListsError(t *testing.T) {
	cm := configMaps.GroupVersionKind
	f := &fakeCluster{resources: []observe.Resource{configMaps}, failures: map[string]error{"list configmaps": errors.New("forbidden")}}
	req := observe.Request{Selector: selector, Kinds: []schema.GroupKind{cm.GroupKind()}}
	req.Prefetched = observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind()}, nil, 1)
	_, err := observe.Observe(context.Background(), f, req)
	require.ErrorContains(t, err, "forbidden")
	assert.Len(t, f.lists, 1, "Observe reports the prefetched LIST's failure rather than reading again")
}

func TestPrefetchWithoutDiscoveryLeavesEverythingToObserve(t *testing.T) {
	cm := configMaps.GroupVersionKind
	f := &fakeCluster{resources: []observe.Resource{configMaps}, failures: map[string]error{"resources": errors.New("connection refused")}}
	p := observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind()}, nil, 1)
	assert.Empty(t, f.lists)
	f.failures = nil
	got, err := observe.Observe(context.Background(), f, observe.Request{Selector: selector, Kinds: []schema.GroupKind{cm.GroupKind()}, Prefetched: p})
	require.NoError(t, err)
	assert.Equal(t, 1, got.Requests.Lists)
	assert.Equal(t, []string{"configmaps  " + selector}, f.lists)
}
