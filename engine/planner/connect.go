package planner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/zclconf/go-cty/cty"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/state"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
)

// LiveConnector connects to live clusters with client-go.
func LiveConnector(opts cluster.Options) Connector {
	return func(_ string, access cluster.Access) (observe.Cluster, error) {
		return cluster.Connect(access, opts)
	}
}

// SnapshotConnector replays the clusters recorded in a snapshot file.
func SnapshotConnector(path string) (Connector, error) {
	connect, _, err := OpenSnapshot(path)
	return connect, err
}

// OpenSnapshot replays the clusters recorded in a snapshot file and says when they were recorded
// (zero for snapshots recorded before the time was kept).
func OpenSnapshot(path string) (Connector, time.Time, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("snapshot %s: %w", path, err)
	}
	defer fh.Close()
	file, err := observe.ReadSnapshot(fh)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return func(name string, _ cluster.Access) (observe.Cluster, error) {
		return file.Cluster(name)
	}, file.RecordedAt, nil
}

// OfflineTime is the time a plan that reads no live cluster is made at when neither `--at` nor
// its snapshot names one (`--offline`, or a snapshot recorded before snapshots kept their
// time): a fixed time, so that such plans are byte-identical from run to run and golden tests
// need no masking. It is documented in docs/cli.md.
var OfflineTime = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// RecordedTimes are the evaluation time (Options.Now) and observation time (Options.ObservedAt)
// of a plan that reads no live cluster. A snapshot's clusters are as they were when it was
// recorded (recordedAt), and the plan is made then or at at (`--at`), what Gardener's controllers
// do in between predicted. Empty clusters (recordedAt zero: offline, or a snapshot recorded before
// snapshots kept their time) are as they are at the plan's time: at, else OfflineTime. Neither
// depends on the clock.
func RecordedTimes(at, recordedAt time.Time) (now, observedAt time.Time) {
	if recordedAt.IsZero() {
		if at.IsZero() {
			at = OfflineTime
		}
		return at, at
	}
	if at.IsZero() {
		at = recordedAt
	}
	return at, recordedAt
}

// OfflineConnector plans without any cluster (`--offline`): every cluster block reads the empty
// cluster observe.EmptyCluster, the pinned Kubernetes and Gardener API with no objects, as a plan
// from a snapshot reads its recording. No kubeconfig is read and nothing connects.
func OfflineConnector() (Connector, error) {
	if _, err := observe.EmptyCluster(); err != nil {
		return nil, err
	}
	return func(string, cluster.Access) (observe.Cluster, error) {
		return observe.EmptyCluster()
	}, nil
}

// Recording connects through another connector and records every read, for `gardener snapshot`.
type Recording struct {
	// At is when the clusters are read, kept in the snapshot (observe.SnapshotFile.RecordedAt);
	// zero keeps no time.
	At        time.Time
	connect   Connector
	mu        sync.Mutex
	recorders map[string]*observe.Recorder
}

// NewRecording records what the clusters of connect answer.
func NewRecording(connect Connector) *Recording {
	return &Recording{connect: connect, recorders: map[string]*observe.Recorder{}}
}

// Connect is the recording's Connector.
func (r *Recording) Connect(name string, access cluster.Access) (observe.Cluster, error) {
	c, err := r.connect(name, access)
	if err != nil {
		return nil, err
	}
	rec := observe.NewRecorder(c)
	r.mu.Lock()
	r.recorders[name] = rec
	r.mu.Unlock()
	return rec, nil
}

// WriteFile writes the recordings as a snapshot file, readable only by its owner: it holds the
// clusters' objects as they are stored, Secrets included.
func (r *Recording) WriteFile(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	file := &observe.SnapshotFile{RecordedAt: r.At, Clusters: map[string]*observe.Recording{}}
	for name, rec := range r.recorders {
		recording, err := rec.Recording()
		if err != nil {
			return fmt.Errorf("snapshot of cluster %s: %w", name, err)
		}
		file.Clusters[name] = recording
	}
	var buf bytes.Buffer
	if err := observe.WriteSnapshot(&buf, file); err != nil {
		return err
	}
	// os.WriteFile would keep the mode of an existing, possibly world-readable, file.
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	return nil
}

// Redact removes the landscape's secrets from a message (an error text can quote a value): those
// of its configuration and what rendering derived from them, and the names of objects that
// depend on sensitive values.
func (o *Outcome) Redact(msg string) string {
	if o == nil {
		return msg
	}
	var secrets []string
	for _, rd := range o.Rendered {
		secrets = append(secrets, rd.Secrets...)
	}
	if o.Result != nil {
		msg = o.Result.Redactor.Redact(msg) // the names it hides besides
	}
	return render.NewRedactor(secrets).Redact(msg)
}

// OpenState returns the state backend of a loaded landscape: its state block, local by default,
// over every shard of it (ShardedState).
func OpenState(res *config.Result, opts cluster.Options) (state.Backend, error) {
	var ev *config.Evaluated
	if res != nil {
		ev = res.Evaluated
	}
	return openState(res, opts, shard.BySeed(ev), state.GardenShard, false)
}

// OpenShardState returns the backend of one shard of a loaded landscape's state, as the
// daemon replica leading that shard writes it (ShardedState), with a the landscape's split.
func OpenShardState(res *config.Result, opts cluster.Options, a *shard.Assignment, home string) (state.Backend, error) {
	return openState(res, opts, a, home, true)
}

func openState(res *config.Result, opts cluster.Options, a *shard.Assignment, home string, own bool) (state.Backend, error) {
	l := res.Landscape
	connect := func(name string) (*cluster.Client, error) {
		var v cty.Value
		if res.Evaluated != nil {
			v = res.Evaluated.Clusters[name]
		}
		access, err := AccessOf(l.Paths, v)
		if err != nil {
			return nil, fmt.Errorf("state cluster %s: %w", name, err)
		}
		return cluster.Connect(access, opts)
	}
	store, err := StateShards(l.State, l.Dir, l.Name, connect)
	if err != nil {
		return nil, err
	}
	if own {
		return ShardedState(store, a, home, own), nil
	}
	return state.NewSharded(store, state.ShardedOptions{Place: a.Place, Shards: a.Shards(), Home: home, Within: scopedShards(res.Evaluated, a)}), nil
}

// connections connects each cluster block once per plan, on first use: rendering reads live
// objects through it (generated secrets reuse the Secret that exists), and observation after.
type connections struct {
	connect  Connector
	paths    *landscapefs.Dir
	mu       sync.Mutex
	clusters map[string]observe.Cluster
	// prefetched are the LISTs started before rendering, by cluster block (set before rendering
	// starts, read-only after): rendering's reads are answered from them where they can be.
	prefetched map[string]*observe.Prefetch
	// ahead are the reads started before rendering from the hints of the previous plan
	// (readahead.go); nil without.
	ahead *readAhead
}

func newConnections(connect Connector, paths *landscapefs.Dir) *connections {
	return &connections{connect: connect, paths: paths, clusters: map[string]observe.Cluster{}}
}

// get returns the connection of cluster block name, whose evaluated value is v.
func (c *connections) get(name string, v cty.Value) (observe.Cluster, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clusters[name]; ok {
		return cl, nil
	}
	access, err := AccessOf(c.paths, v)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	cl, err := c.connect(name, access)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	c.clusters[name] = cl
	return cl, nil
}

// secretsGVR is the resource of core v1 Secrets.
var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// lookup reads a live Secret for a generator step; cluster is the evaluated cluster value.
func (c *connections) lookup(cluster cty.Value, namespace, name string) (*unstructured.Unstructured, error) {
	return c.getObject(cluster, secretsGVR, namespace, name)
}

// getObject reads any live object of a cluster given by its evaluated value (nil when absent).
func (c *connections) getObject(cluster cty.Value, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	block, err := clusterBlock(cluster)
	if err != nil {
		return nil, err
	}
	if obj, ok := c.prefetched[block].Get(context.Background(), gvr, namespace, name); ok {
		return obj, nil
	}
	hint := readHint{Cluster: block, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: namespace, Name: name}
	if r, ok := c.ahead.take(hint); ok {
		return r.obj, nil
	}
	cl, err := c.get(block, cluster)
	if err != nil {
		return nil, err
	}
	return cl.Get(context.Background(), gvr, namespace, name)
}

// listObjects lists the live objects of a resource in a cluster given by its evaluated value. A
// resource the server does not serve (the Gardener API before it is installed) has no objects.
func (c *connections) listObjects(cluster cty.Value, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	block, err := clusterBlock(cluster)
	if err != nil {
		return nil, err
	}
	hint := readHint{Cluster: block, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: namespace, List: true, Selector: labelSelector}
	if r, ok := c.ahead.take(hint); ok {
		return r.items, nil
	}
	cl, err := c.get(block, cluster)
	if err != nil {
		return nil, err
	}
	items, err := cl.List(context.Background(), gvr, namespace, labelSelector)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return items, err
}

// clusterBlock is the name of the cluster block an evaluated cluster value refers to.
func clusterBlock(cluster cty.Value) (string, error) {
	unmarked, _ := cluster.UnmarkDeep()
	if unmarked.IsNull() || !unmarked.Type().IsObjectType() || !unmarked.Type().HasAttribute("name") {
		return "", fmt.Errorf("not a cluster reference")
	}
	return unmarked.GetAttr("name").AsString(), nil
}
