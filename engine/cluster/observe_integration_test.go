package cluster_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
)

// TestObserveCostDoesNotGrowWithObjects creates 512 and then 1024 objects of eight kinds in five
// namespaces and shows that observing them costs the same, small number of HTTP requests:
// discovery, one LIST per kind, and a GET per desired object the LISTs cannot return.
func TestObserveCostDoesNotGrowWithObjects(t *testing.T) {
	setup := runtimeClient(t, nil, cluster.Options{})
	const landscape = "observe-cost"
	namespaces := []string{"obs-cost-0", "obs-cost-1", "obs-cost-2", "obs-cost-3", "obs-cost-4"}
	createNamespaces(t, setup, namespaces...)

	// Objects a plan wants that the inventory LISTs cannot return: one unlabelled object per
	// namespace (adopted) and three that do not exist.
	var extra []object.Ref
	var preexisting []created
	for _, ns := range namespaces {
		u := &unstructured.Unstructured{Object: map[string]interface{}{"data": map[string]interface{}{"a": "b"}}}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace(ns)
		u.SetName("preexisting")
		preexisting = append(preexisting, created{gvr: bulkKinds[0].gvr, obj: u})
		extra = append(extra, refOf(preexisting[len(preexisting)-1]))
	}
	createAll(t, setup, preexisting)
	for _, name := range []string{"absent-a", "absent-b", "absent-c"} {
		extra = append(extra, object.Ref{Kind: "ConfigMap", Namespace: namespaces[0], Name: name})
	}

	const n = 64
	type measurement struct {
		objects  int
		requests int64
		observed *observe.Observed
		took     time.Duration
		summary  string
	}
	var all []created
	measure := func(t *testing.T) measurement {
		counter := &requestCounter{}
		c := runtimeClient(t, counter, cluster.Options{}) // fresh discovery cache: discovery is counted
		desired := append([]object.Ref(nil), extra...)
		for _, o := range all {
			desired = append(desired, refOf(o))
		}
		began := time.Now()
		got, err := observe.Observe(context.Background(), c, observe.Request{
			Selector: inventoryLabel + "=" + landscape,
			Desired:  desired,
		})
		took := time.Since(began)
		require.NoError(t, err)

		want := make([]object.Ref, 0, len(all))
		for _, o := range all {
			want = append(want, refOf(o))
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Less(want[j]) })
		assert.Equal(t, want, got.Inventory)
		assert.Len(t, got.Objects, len(all)+len(namespaces), "bulk objects plus the adopted ones")
		for _, ref := range extra[:len(namespaces)] {
			assert.NotNil(t, got.Objects[ref], "adopted %s", ref)
		}
		assert.Equal(t, observe.Requests{Discovery: 1, Lists: len(bulkKinds), Gets: len(extra)}, got.Requests)
		return measurement{objects: len(all), requests: counter.total.Load(), observed: got, took: took, summary: counter.summary()}
	}

	all = append(all, bulkObjects(landscape, namespaces, 0, n)...)
	createAll(t, setup, all)
	small := measure(t)

	more := bulkObjects(landscape, namespaces, n, 2*n)
	createAll(t, setup, more)
	all = append(all, more...)
	large := measure(t)

	t.Logf("%d objects: %d requests in %s", small.objects, small.requests, small.took.Round(time.Millisecond))
	t.Logf("%d objects: %d requests in %s:\n%s", large.objects, large.requests, large.took.Round(time.Millisecond), large.summary)
	require.GreaterOrEqual(t, small.objects, 500)
	assert.Equal(t, small.requests, large.requests, "requests must not grow with objects:\n%s\n---\n%s", small.summary, large.summary)
	// Aggregated discovery (/api, /apis), one page per kind, and the GETs of extra objects.
	assert.LessOrEqual(t, large.requests, int64(2+len(bulkKinds)+len(extra)), large.summary)

	// With a small page size the LISTs page, still independent of GETs.
	counter := &requestCounter{}
	paged := runtimeClient(t, counter, cluster.Options{PageSize: 50})
	items, err := paged.List(context.Background(), bulkKinds[0].gvr, "", inventoryLabel+"="+landscape)
	require.NoError(t, err)
	assert.Len(t, items, 2*n)
	assert.Equal(t, int64(3), counter.total.Load(), "128 objects in pages of 50:\n%s", counter.summary())
}

// TestSnapshotReplaysLiveObserve records an observation of a live cluster, saves it as a
// snapshot file and replays it: the offline result is identical.
func TestSnapshotReplaysLiveObserve(t *testing.T) {
	c := runtimeClient(t, nil, cluster.Options{})
	const landscape = "observe-snapshot"
	namespaces := []string{"obs-snap-0", "obs-snap-1"}
	createNamespaces(t, c, namespaces...)
	objs := bulkObjects(landscape, namespaces, 0, 3)
	createAll(t, c, objs)

	desired := []object.Ref{
		{Kind: "ConfigMap", Namespace: namespaces[0], Name: "kube-root-ca.crt"}, // exists unlabelled, maybe not yet
		{Kind: "ConfigMap", Namespace: namespaces[0], Name: "absent"},
		{Group: "druid.gardener.cloud", Kind: "Etcd", Namespace: namespaces[0], Name: "main"},
	}
	for _, o := range objs[:10] {
		desired = append(desired, refOf(o))
	}
	req := observe.Request{
		Selector: inventoryLabel + "=" + landscape,
		Desired:  desired,
		Kinds:    []schema.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}},
		Pending:  map[schema.GroupKind]bool{{Group: "druid.gardener.cloud", Kind: "Etcd"}: true},
	}
	ctx := context.Background()
	rec := observe.NewRecorder(c)
	live, err := observe.Observe(ctx, rec, req)
	require.NoError(t, err)
	assert.True(t, live.Unserved[schema.GroupKind{Group: "druid.gardener.cloud", Kind: "Etcd"}])
	liveVersion, err := rec.ServerVersion(ctx)
	require.NoError(t, err)
	liveIndex, err := rec.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	require.Contains(t, liveIndex, "apis/apps/v1")
	liveDoc, err := rec.OpenAPIV3(ctx, "apis/apps/v1")
	require.NoError(t, err)

	recording, err := rec.Recording()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "snapshot.json")
	var written bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&written, &observe.SnapshotFile{Clusters: map[string]*observe.Recording{"runtime": recording}}))
	require.NoError(t, os.WriteFile(path, written.Bytes(), 0o600))

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	file, err := observe.ReadSnapshot(f)
	require.NoError(t, err)
	var rewritten bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&rewritten, file))
	assert.Equal(t, written.String(), rewritten.String(), "write, read, write is byte-identical")

	snap, err := file.Cluster("runtime")
	require.NoError(t, err)
	replayed, err := observe.Observe(ctx, snap, req)
	require.NoError(t, err)
	assert.Equal(t, live, replayed)
	v, err := snap.ServerVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, liveVersion, v)
	index, err := snap.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	assert.Equal(t, liveIndex, index)
	doc, err := snap.OpenAPIV3(ctx, "apis/apps/v1")
	require.NoError(t, err)
	assert.Equal(t, liveDoc, doc)

	for ref, obj := range replayed.Objects {
		assert.NotEmpty(t, obj.GetManagedFields(), "%s keeps managedFields", ref)
	}
	t.Logf("snapshot of %d objects: %d bytes", len(live.Objects), written.Len())
}
