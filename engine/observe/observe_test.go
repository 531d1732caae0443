package observe_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
)

func ref(gvk schema.GroupVersionKind, namespace, name string) object.Ref {
	return object.Ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: namespace, Name: name}
}

func TestObserveDecisions(t *testing.T) {
	cm, ns, dep, etcd := configMaps.GroupVersionKind, namespaces.GroupVersionKind, deploys.GroupVersionKind, etcds.GroupVersionKind
	all := []observe.Resource{configMaps, namespaces, deploys, etcds, reviews}
	objects := []*unstructured.Unstructured{
		obj(cm, "a", "one", true),
		obj(cm, "a", "two", true),
		obj(cm, "b", "old", true),          // applied earlier, no longer desired
		obj(cm, "a", "foreign", false),     // someone else's, not desired
		obj(cm, "a", "preexisting", false), // desired, exists without our label: adopted
		obj(ns, "", "a", true),
		obj(dep, "a", "web", true),
		obj(dep, "c", "api", true),
	}

	tests := []struct {
		name       string
		resources  []observe.Resource
		req        observe.Request
		wantLists  []string
		wantGets   []string
		wantFound  []object.Ref
		wantInv    []object.Ref
		wantUnserv []schema.GroupKind
		wantErr    string
	}{
		{
			name:      "one namespace: the list is scoped to it",
			req:       observe.Request{Desired: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")}},
			wantLists: []string{"configmaps a " + selector},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
		},
		{
			name:      "several namespaces: one cluster-wide list",
			req:       observe.Request{Desired: []object.Ref{ref(dep, "a", "web"), ref(dep, "c", "api")}},
			wantLists: []string{"deployments  " + selector},
			wantFound: []object.Ref{ref(dep, "a", "web"), ref(dep, "c", "api")},
			wantInv:   []object.Ref{ref(dep, "a", "web"), ref(dep, "c", "api")},
		},
		{
			name: "kind from state: cluster-wide, so prune sees objects in other namespaces",
			req: observe.Request{
				Desired: []object.Ref{ref(cm, "a", "one")},
				Kinds:   []schema.GroupKind{cm.GroupKind()},
			},
			wantLists: []string{"configmaps  " + selector},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two"), ref(cm, "b", "old")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two"), ref(cm, "b", "old")},
		},
		{
			name: "by name: a GET per desired and recorded object, no LIST, kinds from state ignored",
			req: observe.Request{
				ByName:   true,
				Desired:  []object.Ref{ref(cm, "a", "one"), ref(ns, "", "new"), ref(cm, "new", "settings")},
				Recorded: []object.Ref{ref(cm, "b", "old"), ref(cm, "a", "one")},
				Kinds:    []schema.GroupKind{dep.GroupKind()},
			},
			wantGets:  []string{"configmaps a/one", "configmaps b/old", "namespaces /new"},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "b", "old")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "b", "old")},
		},
		{
			name: "by name: a namespace with enough objects of a kind is listed, the rest fetched",
			req: observe.Request{
				ByName: true,
				Desired: []object.Ref{
					ref(cm, "a", "one"), ref(cm, "a", "two"), ref(cm, "a", "preexisting"), ref(cm, "a", "absent"),
					ref(cm, "b", "new"), ref(ns, "", "a"),
				},
			},
			wantLists: []string{"configmaps a " + selector},
			wantGets:  []string{"configmaps a/absent", "configmaps a/preexisting", "configmaps b/new", "namespaces /a"},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "preexisting"), ref(cm, "a", "two"), ref(ns, "", "a")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two"), ref(ns, "", "a")},
		},
		{
			name:      "kind only from state, nothing desired",
			req:       observe.Request{Kinds: []schema.GroupKind{dep.GroupKind()}},
			wantLists: []string{"deployments  " + selector},
			wantFound: []object.Ref{ref(dep, "a", "web"), ref(dep, "c", "api")},
			wantInv:   []object.Ref{ref(dep, "a", "web"), ref(dep, "c", "api")},
		},
		{
			name:      "cluster-scoped kind",
			req:       observe.Request{Desired: []object.Ref{ref(ns, "", "a")}},
			wantLists: []string{"namespaces  " + selector},
			wantFound: []object.Ref{ref(ns, "", "a")},
			wantInv:   []object.Ref{ref(ns, "", "a")},
		},
		{
			name:      "desired objects the list missed are fetched: adopted and absent",
			req:       observe.Request{Desired: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "preexisting"), ref(cm, "a", "absent")}},
			wantLists: []string{"configmaps a " + selector},
			wantGets:  []string{"configmaps a/absent", "configmaps a/preexisting"},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "preexisting"), ref(cm, "a", "two")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
		},
		{
			name: "nothing is fetched from a desired namespace that does not exist",
			req: observe.Request{Desired: []object.Ref{
				ref(ns, "", "a"), ref(ns, "", "new"),
				ref(cm, "new", "settings"), ref(dep, "new", "api"), ref(cm, "a", "absent"), ref(cm, "elsewhere", "absent"),
			}},
			wantLists: []string{"configmaps  " + selector, "deployments new " + selector, "namespaces  " + selector},
			wantGets:  []string{"configmaps a/absent", "configmaps elsewhere/absent", "namespaces /new"},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two"), ref(cm, "b", "old"), ref(ns, "", "a")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two"), ref(cm, "b", "old"), ref(ns, "", "a")},
		},
		{
			name:      "duplicate desired objects are read once",
			req:       observe.Request{Desired: []object.Ref{ref(cm, "a", "absent"), ref(cm, "a", "absent")}},
			wantLists: []string{"configmaps a " + selector},
			wantGets:  []string{"configmaps a/absent"},
			wantFound: []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
			wantInv:   []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
		},
		{
			name:      "pending kind not served yet: no request, reported unserved",
			resources: []observe.Resource{configMaps},
			req: observe.Request{
				Desired: []object.Ref{ref(etcd, "a", "main"), ref(cm, "a", "one")},
				Pending: map[schema.GroupKind]bool{etcd.GroupKind(): true},
			},
			wantLists:  []string{"configmaps a " + selector},
			wantFound:  []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
			wantInv:    []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "two")},
			wantUnserv: []schema.GroupKind{etcd.GroupKind()},
		},
		{
			name: "pending kind already served: observed like any other",
			req: observe.Request{
				Desired: []object.Ref{ref(etcd, "a", "main")},
				Pending: map[schema.GroupKind]bool{etcd.GroupKind(): true},
			},
			wantLists: []string{"etcds a " + selector},
			wantGets:  []string{"etcds a/main"},
		},
		{
			name:       "kind from state no longer served: unserved, not an error",
			resources:  []observe.Resource{configMaps},
			req:        observe.Request{Kinds: []schema.GroupKind{etcd.GroupKind()}},
			wantUnserv: []schema.GroupKind{etcd.GroupKind()},
		},
		{
			name:     "kind without list verb: desired objects fetched one by one",
			req:      observe.Request{Desired: []object.Ref{ref(reviews.GroupVersionKind, "", "x")}},
			wantGets: []string{"tokenreviews /x"},
		},
		{
			name:      "unknown kind",
			resources: []observe.Resource{configMaps},
			req:       observe.Request{Desired: []object.Ref{ref(etcd, "b", "events"), ref(etcd, "a", "main")}},
			wantErr:   "observe: kind Etcd.druid.gardener.cloud is not served by the cluster (used by Etcd.druid.gardener.cloud a/main)",
		},
		{
			name:    "empty selector",
			req:     observe.Request{Selector: "-"},
			wantErr: "observe: the inventory label selector is empty",
		},
		{
			name:    "invalid selector",
			req:     observe.Request{Selector: "a in (b"},
			wantErr: `observe: inventory label selector "a in (b"`,
		},
		{
			name:    "namespaced kind without namespace",
			req:     observe.Request{Desired: []object.Ref{ref(cm, "", "x")}},
			wantErr: "observe ConfigMap x: kind ConfigMap is namespaced but the object has no namespace",
		},
		{
			name:    "cluster-scoped kind with namespace",
			req:     observe.Request{Desired: []object.Ref{ref(ns, "a", "x")}},
			wantErr: "observe Namespace a/x: kind Namespace is cluster-scoped but the object has a namespace",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCluster{resources: tt.resources, objects: objects}
			if f.resources == nil {
				f.resources = all
			}
			req := tt.req
			switch req.Selector {
			case "":
				req.Selector = selector
			case "-":
				req.Selector = ""
			}
			got, err := observe.Observe(context.Background(), f, req)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			lists, gets := f.calls()
			assert.Equal(t, tt.wantLists, lists, "lists")
			assert.Equal(t, tt.wantGets, gets, "gets")
			assert.Equal(t, observe.Requests{Discovery: 1, Lists: len(tt.wantLists), Gets: len(tt.wantGets)}, got.Requests)
			var found []object.Ref
			for r, o := range got.Objects {
				found = append(found, r)
				assert.Equal(t, r.Name, o.GetName())
			}
			assert.ElementsMatch(t, tt.wantFound, found, "objects")
			assert.Equal(t, tt.wantInv, got.Inventory, "inventory")
			var unserved []schema.GroupKind
			for gk := range got.Unserved {
				unserved = append(unserved, gk)
			}
			assert.ElementsMatch(t, tt.wantUnserv, unserved, "unserved")
			for gk := range got.Resources {
				assert.False(t, got.Unserved[gk], "kind %v both served and unserved", gk)
			}
		})
	}
}

func TestObserveErrors(t *testing.T) {
	cm := configMaps.GroupVersionKind
	boom := errors.New("boom")
	tests := []struct {
		name     string
		failures map[string]error
		wantErr  string
	}{
		{name: "discovery", failures: map[string]error{"resources": boom}, wantErr: "observe: boom"},
		{name: "list", failures: map[string]error{"list configmaps": boom}, wantErr: "observe ConfigMap: boom"},
		{name: "get", failures: map[string]error{"get configmaps a/absent": boom}, wantErr: "observe ConfigMap a/absent: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCluster{resources: []observe.Resource{configMaps, deploys}, failures: tt.failures}
			_, err := observe.Observe(context.Background(), f, observe.Request{
				Selector: selector,
				Desired:  []object.Ref{ref(cm, "a", "absent"), ref(deploys.GroupVersionKind, "a", "web")},
			})
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, err.Error())
			assert.ErrorIs(t, err, boom)
		})
	}
}

func TestObserveRefreshesStaleDiscovery(t *testing.T) {
	etcd := etcds.GroupVersionKind
	f := &refreshingFake{
		fakeCluster:  &fakeCluster{resources: []observe.Resource{configMaps}, objects: []*unstructured.Unstructured{obj(etcd, "a", "main", true)}},
		afterRefresh: []observe.Resource{configMaps, etcds},
	}
	got, err := observe.Observe(context.Background(), f, observe.Request{Selector: selector, Desired: []object.Ref{ref(etcd, "a", "main")}})
	require.NoError(t, err)
	assert.Equal(t, 1, f.refreshes)
	assert.Equal(t, observe.Requests{Discovery: 2, Lists: 1}, got.Requests)
	assert.Equal(t, []object.Ref{ref(etcd, "a", "main")}, got.Inventory)
	assert.Empty(t, got.Unserved)

	// Every kind known: no refresh.
	f.refreshes = 0
	_, err = observe.Observe(context.Background(), f, observe.Request{Selector: selector, Desired: []object.Ref{ref(etcd, "a", "main")}})
	require.NoError(t, err)
	assert.Zero(t, f.refreshes)
}

// TestObserveCostIsPerKind shows that the number of reads does not depend on the number of
// objects when every desired object carries the inventory label.
func TestObserveCostIsPerKind(t *testing.T) {
	cm, dep := configMaps.GroupVersionKind, deploys.GroupVersionKind
	for _, n := range []int{10, 1000} {
		f := &fakeCluster{resources: []observe.Resource{configMaps, deploys}}
		var desired []object.Ref
		for i := 0; i < n; i++ {
			for _, gvk := range []schema.GroupVersionKind{cm, dep} {
				name := "o-" + strconv.Itoa(i)
				f.objects = append(f.objects, obj(gvk, "ns"+strconv.Itoa(i%3), name, true))
				desired = append(desired, ref(gvk, "ns"+strconv.Itoa(i%3), name))
			}
		}
		got, err := observe.Observe(context.Background(), f, observe.Request{Selector: selector, Desired: desired, Parallelism: 4})
		require.NoError(t, err)
		assert.Equal(t, observe.Requests{Discovery: 1, Lists: 2}, got.Requests, "n=%d", n)
		assert.Len(t, got.Objects, 2*n)
		assert.Len(t, got.Inventory, 2*n)
	}
}
