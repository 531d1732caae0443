package observe_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
)

// Gateways as Istio serves them: v1 preferred, v1beta1 too.
var (
	gatewaysV1      = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "Gateway"}, Resource: "gateways", Namespaced: true, Verbs: []string{"get", "list"}}
	gatewaysV1beta1 = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1beta1", Kind: "Gateway"}, Resource: "gateways", Namespaced: true, Verbs: []string{"get", "list"}}
)

// versionedFake serves a kind in two versions, answering each LIST with the objects in the
// version asked for, and records the versions listed; a LIST of unserved fails as a server that
// no longer serves a version does.
type versionedFake struct {
	*fakeCluster
	unserved string
	mu       sync.Mutex
	listed   []string
}

func (f *versionedFake) List(ctx context.Context, gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	f.mu.Lock()
	f.listed = append(f.listed, gvr.Version)
	f.mu.Unlock()
	if gvr.Version == f.unserved {
		return nil, errors.New("the server could not find the requested resource")
	}
	items, err := f.fakeCluster.List(ctx, gvr, namespace, selector)
	for i := range items {
		items[i].SetAPIVersion(gvr.GroupVersion().String())
	}
	return items, err
}

// A kind the landscape writes in a version other than the preferred one is listed in that
// version (the diff then needs no GET of each object in it), in the preferred one where that
// fails, and taken from a prefetch made in the same version.
func TestObserveListsInTheVersionTheLandscapeWrites(t *testing.T) {
	gk := gatewaysV1.GroupKind()
	newFake := func(unserved string) *versionedFake {
		return &versionedFake{unserved: unserved, fakeCluster: &fakeCluster{
			resources: []observe.Resource{gatewaysV1, gatewaysV1beta1},
			objects:   []*unstructured.Unstructured{obj(gatewaysV1.GroupVersionKind, "garden", "kube-apiserver", true)},
		}}
	}
	req := observe.Request{Selector: selector, Desired: []object.Ref{ref(gatewaysV1.GroupVersionKind, "garden", "kube-apiserver")},
		Versions: map[schema.GroupKind]string{gk: "v1beta1"}}
	gateway := ref(gatewaysV1.GroupVersionKind, "garden", "kube-apiserver")
	tests := []struct {
		name       string
		unserved   string
		prefetch   bool
		wantListed []string
		want       string
	}{
		{name: "listed in the version written", wantListed: []string{"v1beta1"}, want: "networking.istio.io/v1beta1"},
		{name: "the preferred version where that fails", unserved: "v1beta1", wantListed: []string{"v1beta1", "v1"}, want: "networking.istio.io/v1"},
		{name: "prefetched in the version written", prefetch: true, wantListed: []string{"v1beta1"}, want: "networking.istio.io/v1beta1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(tt.unserved)
			req := req
			if tt.prefetch {
				// As a plan prefetches the kinds the state records, which it lists cluster-wide.
				req.Kinds = []schema.GroupKind{gk}
				req.Prefetched = observe.StartPrefetch(context.Background(), f, selector, req.Kinds, req.Versions, 1)
			}
			got, err := observe.Observe(context.Background(), f, req)
			require.NoError(t, err)
			require.NotNil(t, got.Objects[gateway])
			assert.Equal(t, tt.want, got.Objects[gateway].GetAPIVersion())
			assert.Equal(t, tt.wantListed, f.listed)
			_, gets := f.calls()
			assert.Empty(t, gets)
			assert.Equal(t, tt.want, got.Resources[gk].GroupVersion().String(), "the kind is observed in the version listed")
		})
	}
}
