package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func configMap(ns, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

// unreachable is a client whose every request fails, so that a read it serves is a read the
// cache did not.
func unreachable(t *testing.T) *cluster.Client {
	t.Helper()
	c, err := cluster.ConnectConfig(&rest.Config{Host: "http://127.0.0.1:1", Timeout: time.Second}, cluster.Options{NoDiskCache: true, Retries: 1})
	require.NoError(t, err)
	return c
}

// Owned objects are read from the watches' informers: a LIST with the inventory selector of a
// watched resource (namespace-scoped or not, in the API server's order) and a GET of an object
// it holds. Anything else goes to the API server.
func TestCachedClusterServesOwnedObjectsFromTheWatches(t *testing.T) {
	owned := map[string]string{inventory.LandscapeLabel: "land"}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMapsGVR: "ConfigMapList", secretsGVR: "SecretList"},
		configMap("b", "two", owned), configMap("a", "one", owned), configMap("a", "zero", owned), configMap("a", "foreign", nil))
	w := &watcher{landscape: "land", trigger: func(string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer w.close()
	w.ensure(ctx, map[string]dynamic.Interface{"runtime": dyn}, []WatchTarget{{Cluster: "runtime", GVR: configMapsGVR}}, headTarget{})
	require.Eventually(t, func() bool { return w.store("runtime", configMapsGVR) != nil }, 10*time.Second, 10*time.Millisecond)

	c := &cachedCluster{Client: unreachable(t), name: "runtime", watch: w}
	selector := inventory.Selector("land")
	all, err := c.List(ctx, configMapsGVR, "", selector)
	require.NoError(t, err)
	var names []string
	for _, u := range all {
		names = append(names, u.GetNamespace()+"/"+u.GetName())
	}
	assert.Equal(t, []string{"a/one", "a/zero", "b/two"}, names, "only owned objects, sorted by namespace and name")
	inA, err := c.List(ctx, configMapsGVR, "a", selector)
	require.NoError(t, err)
	assert.Len(t, inA, 2)

	got, err := c.Get(ctx, configMapsGVR, "b", "two")
	require.NoError(t, err)
	assert.Equal(t, "two", got.GetName())
	got.SetName("changed")
	again, err := c.Get(ctx, configMapsGVR, "b", "two")
	require.NoError(t, err)
	assert.Equal(t, "two", again.GetName(), "callers get copies")

	// Not owned, another selector, or a resource nobody watches: the API server is asked.
	_, err = c.Get(ctx, configMapsGVR, "a", "foreign")
	assert.Error(t, err)
	_, err = c.List(ctx, configMapsGVR, "", "app=other")
	assert.Error(t, err)
	_, err = c.List(ctx, secretsGVR, "", selector)
	assert.Error(t, err)
}

// The lists render functions read (the Shoots on a seed) are answered from the list watches'
// informers: exactly the list watched (resource, namespace, selector), anything else from the
// API server.
func TestCachedClusterServesRenderListsFromTheWatches(t *testing.T) {
	shootsGVR := schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	shoot := func(ns, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot"}}
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{shootsGVR: "ShootList"}, shoot("garden-b", "two"), shoot("garden-a", "one"))
	lists := &listWatcher{trigger: func(string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer lists.close()
	ref := render.ListRef{Cluster: "virtual", Group: shootsGVR.Group, Version: shootsGVR.Version, Resource: shootsGVR.Resource}
	lists.ensure(ctx, map[string]dynamic.Interface{"virtual": dyn}, []render.ListRef{ref})
	require.Eventually(t, func() bool { return lists.store(ref) != nil }, 10*time.Second, 10*time.Millisecond)

	c := &cachedCluster{Client: unreachable(t), name: "virtual", watch: &watcher{landscape: "land"}, lists: lists}
	all, err := c.List(ctx, shootsGVR, "", "")
	require.NoError(t, err, "served from the list's informer")
	var names []string
	for _, u := range all {
		names = append(names, u.GetNamespace()+"/"+u.GetName())
	}
	assert.Equal(t, []string{"garden-a/one", "garden-b/two"}, names, "sorted by namespace and name")
	_, err = c.List(ctx, shootsGVR, "garden-a", "")
	assert.Error(t, err, "another namespace is another list: the API server is asked")
	_, err = c.List(ctx, shootsGVR, "", "app=x")
	assert.Error(t, err, "so is another selector")
	other := &cachedCluster{Client: unreachable(t), name: "runtime", watch: &watcher{landscape: "land"}, lists: lists}
	_, err = other.List(ctx, shootsGVR, "", "")
	assert.Error(t, err, "and another cluster")
}

// The state head's informer says which version of the state is stored; a plan from the caches
// uses the state it knows only while the head names that version.
func TestWatcherFollowsTheStateHead(t *testing.T) {
	head := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}
	head.SetNamespace("state")
	head.SetName("gardener-state-land")
	head.SetAnnotations(map[string]string{"state.declarative-gardener.io/serial": "7", "state.declarative-gardener.io/lineage": "l-1",
		"state.declarative-gardener.io/chunks": "1", "state.declarative-gardener.io/sha256": "00"})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMapsGVR: "ConfigMapList", secretsGVR: "SecretList"}, head)
	w := &watcher{landscape: "land", trigger: func(string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer w.close()
	target := headTarget{Cluster: "runtime", Namespace: "state", Name: "gardener-state-land"}
	_, _, _, ok := w.headVersion(target)
	assert.False(t, ok, "nothing watched yet")
	w.ensure(ctx, map[string]dynamic.Interface{"runtime": dyn}, nil, target)
	require.Eventually(t, func() bool { _, _, _, ok := w.headVersion(target); return ok }, 10*time.Second, 10*time.Millisecond)
	lineage, serial, exists, _ := w.headVersion(target)
	assert.Equal(t, "l-1", lineage)
	assert.Equal(t, int64(7), serial)
	assert.True(t, exists)
	_, _, _, ok = w.headVersion(headTarget{Cluster: "runtime", Namespace: "other", Name: "gardener-state-land"})
	assert.False(t, ok, "a head watched elsewhere says nothing about this one")
}

func TestRequestsAreCountedByVerb(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	m := NewMetrics(prometheus.NewRegistry())
	client := &http.Client{Transport: m.CountRequests(http.DefaultTransport)}
	for _, r := range []struct{ method, query string }{{"GET", ""}, {"GET", "?watch=true"}, {"GET", "?watch=1"}, {"PATCH", ""}, {"DELETE", ""}} {
		req, err := http.NewRequest(r.method, srv.URL+"/api/v1/configmaps"+r.query, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Requests.WithLabelValues("get")))
	assert.Equal(t, 2.0, testutil.ToFloat64(m.Requests.WithLabelValues("watch")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Requests.WithLabelValues("patch")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.Requests.WithLabelValues("delete")))
}

func TestChangesAPIs(t *testing.T) {
	withObject := func(gk schema.GroupKind, action plan.Action) *plan.Plan {
		return &plan.Plan{Components: []*plan.Component{{Objects: []*plan.ObjectChange{{Ref: object.Ref{Group: gk.Group, Kind: gk.Kind, Name: "x"}, Action: action}}}}}
	}
	crd := schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	assert.True(t, changesAPIs(withObject(crd, plan.Create)))
	assert.True(t, changesAPIs(withObject(schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, plan.Delete)))
	assert.False(t, changesAPIs(withObject(crd, plan.NoOp)), "an unchanged CRD")
	assert.False(t, changesAPIs(withObject(schema.GroupKind{Kind: "ConfigMap"}, plan.Update)))
}

func TestStatusContentIgnoresTimes(t *testing.T) {
	a := Status{Phase: PhaseUpToDate, PlanHash: "h", PlanTime: time.Unix(1, 0), LastSuccess: time.Unix(1, 0)}
	b := a
	b.PlanTime, b.LastSuccess, b.ApplyTime = time.Unix(2, 0), time.Unix(2, 0), time.Unix(2, 0)
	assert.Equal(t, a.content(), b.content())
	b.PlanHash = "other"
	assert.NotEqual(t, a.content(), b.content())
}

// Objects changed out of band count as drifted: fields edited or removed (drift) and fields
// another field manager took over (conflict, as after kubectl edit); landscape changes do not.
func TestRecordPlanCountsDrift(t *testing.T) {
	d := New(Options{Metrics: NewMetrics(prometheus.NewRegistry())})
	obj := func(name string, reason plan.Reason) *plan.ObjectChange {
		return &plan.ObjectChange{Cluster: "runtime", Ref: object.Ref{Kind: "ConfigMap", Namespace: "ns", Name: name}, Action: plan.Update, Reason: reason}
	}
	pl := &plan.Plan{Components: []*plan.Component{{Address: "component.manifests.a", Objects: []*plan.ObjectChange{
		obj("edited", plan.Reason{Kind: plan.ReasonDrift}), obj("taken", plan.Reason{Kind: plan.ReasonConflict, Detail: "kubectl-edit"}), obj("changed", plan.Reason{Kind: plan.ReasonConfigChanged}),
	}}}}
	var s Status
	d.recordPlan(&s, pl)
	assert.Equal(t, []string{
		"component.manifests.a ConfigMap ns/edited (runtime)",
		"component.manifests.a ConfigMap ns/taken (runtime)",
	}, s.Drifted)
	assert.Equal(t, 2.0, testutil.ToFloat64(d.o.Metrics.Drifted))
}
