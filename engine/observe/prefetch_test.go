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
	req.Prefetched = observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind(), dep.GroupKind(), etcds.GroupVersionKind.GroupKind()}, 2)
	got, err := observe.Observe(context.Background(), f, req)
	require.NoError(t, err)
	assert.Equal(t, want.Objects, got.Objects, "the same objects as without prefetching")
	assert.Equal(t, want.Inventory, got.Inventory)
	assert.Equal(t, want.Requests, got.Requests, "a prefetched LIST counts as the LIST it replaces")
	assert.ElementsMatch(t, plain.lists, f.lists, "no LIST is made twice: Observe took the prefetched ones")

	// A second Observe reads afresh: a prefetched LIST is taken once.
	f.lists = nil
	_, err = observe.Observe(context.Background(), f, req)
	require.NoError(t, err)
	assert.ElementsMatch(t, plain.lists, f.lists)
}

func TestObserveReportsAPrefetchedListsError(t *testing.T) {
	cm := configMaps.GroupVersionKind
	f := &fakeCluster{resources: []observe.Resource{configMaps}, failures: map[string]error{"list configmaps": errors.New("forbidden")}}
	req := observe.Request{Selector: selector, Kinds: []schema.GroupKind{cm.GroupKind()}}
	req.Prefetched = observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind()}, 1)
	_, err := observe.Observe(context.Background(), f, req)
	require.ErrorContains(t, err, "forbidden")
	assert.Len(t, f.lists, 1, "Observe reports the prefetched LIST's failure rather than reading again")
}

func TestPrefetchWithoutDiscoveryLeavesEverythingToObserve(t *testing.T) {
	cm := configMaps.GroupVersionKind
	f := &fakeCluster{resources: []observe.Resource{configMaps}, failures: map[string]error{"resources": errors.New("connection refused")}}
	p := observe.StartPrefetch(context.Background(), f, selector, []schema.GroupKind{cm.GroupKind()}, 1)
	assert.Empty(t, f.lists)
	f.failures = nil
	got, err := observe.Observe(context.Background(), f, observe.Request{Selector: selector, Kinds: []schema.GroupKind{cm.GroupKind()}, Prefetched: p})
	require.NoError(t, err)
	assert.Equal(t, 1, got.Requests.Lists)
	assert.Equal(t, []string{"configmaps  " + selector}, f.lists)
}
