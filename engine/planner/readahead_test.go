package planner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

// eventLog records, in order, the reads a cluster answered and when rendering ran; with together
// set, a read waits (up to a few seconds) until that many reads are in flight, and the largest
// number in flight at once is kept.
type eventLog struct {
	mu       sync.Mutex
	events   []string
	together int
	inFlight int
	most     int
	cond     *sync.Cond
}

func newEventLog() *eventLog {
	l := &eventLog{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *eventLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// read logs a read and, with together set, waits for the others.
func (l *eventLog) read(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	l.inFlight++
	l.most = max(l.most, l.inFlight)
	l.cond.Broadcast()
	deadline := time.Now().Add(5 * time.Second)
	for l.together > 0 && l.inFlight < l.together && time.Now().Before(deadline) {
		go func() { time.Sleep(10 * time.Millisecond); l.cond.Broadcast() }()
		l.cond.Wait()
	}
	if l.inFlight >= l.together {
		l.together = 0 // released: the rest of the plan reads freely
	}
	l.inFlight--
}

func (l *eventLog) take() (events []string, most int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	events, most = l.events, l.most
	l.events, l.most = nil, 0
	return events, most
}

// loggingCluster is an empty cluster that logs the reads of rendering (those without the
// landscape's label selector).
type loggingCluster struct {
	observe.Cluster
	log *eventLog
}

func (c loggingCluster) List(ctx context.Context, gvr k8sschema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	if selector == "role=reader" {
		c.log.read("list " + gvr.Resource)
	}
	return c.Cluster.List(ctx, gvr, namespace, selector)
}

func (c loggingCluster) Get(ctx context.Context, gvr k8sschema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	c.log.read("get " + gvr.Resource + " " + namespace + "/" + name)
	return c.Cluster.Get(ctx, gvr, namespace, name)
}

// The reads rendering made in one plan are made before rendering in the next, each once: the
// render function gets the answer of the read-ahead, not a second request; a read it no longer
// makes costs one request and is forgotten.
func TestReadAheadMakesRenderingsReadsBeforeRendering(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "landscape.hcl"), []byte(`
landscape "small" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "reader" {
  cluster   = cluster.runtime
  namespace = "default"
  objects   = []
}
`), 0o644))
	log := newEventLog()
	reads := []string{"settings", "other"}
	reader := func(in render.Input) (*render.Output, error) {
		log.add("render")
		for _, name := range reads {
			if _, err := in.Observe(render.LiveRef{Cluster: "runtime", Version: "v1", Resource: "configmaps", Namespace: "default", Name: name}); err != nil {
				return nil, err
			}
		}
		if _, err := in.List(render.ListRef{Cluster: "runtime", Version: "v1", Resource: "namespaces", LabelSelector: "role=reader"}); err != nil {
			return nil, err
		}
		return &render.Output{}, nil
	}
	hints := t.TempDir()
	plan := func(together int) ([]string, int) {
		log.together = together
		_, diags, err := Plan(context.Background(), Options{
			Dir: dir, Schemas: catalog.Schemas(), Renderers: render.Registry{"manifests": reader}, // a render function that reads
			Connect: func(string, cluster.Access) (observe.Cluster, error) {
				empty, err := observe.EmptyCluster()
				return loggingCluster{Cluster: empty, log: log}, err
			},
			Differs:  LocalDiffers(t.TempDir()),
			Prefetch: true, ReadHints: hints,
		})
		require.False(t, diags.HasErrors(), diags.Error())
		require.NoError(t, err)
		return log.take()
	}
	events, most := plan(0)
	assert.Equal(t, []string{"render", "get configmaps default/settings", "get configmaps default/other", "list namespaces"}, events,
		"the first plan has no hints: rendering reads one after the other as it goes")
	assert.Equal(t, 1, most)
	files, err := filepath.Glob(filepath.Join(hints, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)

	// The next plan makes the three reads at once, ahead of rendering, which takes their answers.
	events, most = plan(3)
	assert.Equal(t, 3, most, "the reads are in flight together")
	assert.ElementsMatch(t, []string{"render", "get configmaps default/settings", "get configmaps default/other", "list namespaces"}, events,
		"each read once: rendering asks no second time")

	reads = []string{"settings"}
	events, _ = plan(0)
	assert.Len(t, events, 4, "the hint of a read no longer made costs its request")
	events, _ = plan(0)
	assert.ElementsMatch(t, []string{"render", "get configmaps default/settings", "list namespaces"}, events, "and is forgotten")

	var f hintFile
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	assert.Equal(t, []readHint{
		{Cluster: "runtime", Version: "v1", Resource: "configmaps", Namespace: "default", Name: "settings"},
		{Cluster: "runtime", Version: "v1", Resource: "namespaces", List: true, Selector: "role=reader"},
	}, f.Reads)
}
