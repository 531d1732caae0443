package cluster_test

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

const (
	inventoryLabel = "declarative-gardener.io/landscape"
)

// requestCounter counts HTTP requests by method and path.
type requestCounter struct {
	mu    sync.Mutex
	total atomic.Int64
	paths map[string]int
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		c.total.Add(1)
		c.mu.Lock()
		if c.paths == nil {
			c.paths = map[string]int{}
		}
		c.paths[r.Method+" "+r.URL.Path]++
		c.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (c *requestCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total.Store(0)
	c.paths = nil
}

// summary lists the requests made, sorted, for logs and failure messages.
func (c *requestCounter) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for p, n := range c.paths {
		lines = append(lines, p+" x"+strconv.Itoa(n))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// runtimeClient connects to the shared cluster's runtime plane through its kubeconfig, the way
// the CLI does, with a private discovery cache and an optional request counter.
func runtimeClient(t *testing.T, counter *requestCounter, opts cluster.Options) *cluster.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Shared(t)
	if opts.CacheDir == "" && !opts.NoDiskCache {
		opts.CacheDir = t.TempDir()
	}
	if counter != nil {
		opts.WrapTransport = counter.wrap
	}
	c, err := cluster.Connect(cluster.Access{Kubeconfig: lc.Kubeconfig(), Context: localcluster.RuntimePlane}, opts)
	require.NoError(t, err)
	return c
}

// createNamespaces creates namespaces for one test.
func createNamespaces(t *testing.T, c *cluster.Client, names ...string) {
	t.Helper()
	for _, name := range names {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		ns.SetName(name)
		_, err := c.Dynamic().Resource(corev1.SchemeGroupVersion.WithResource("namespaces")).Create(context.Background(), ns, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
}

// created is an object to create with the resource to create it through.
type created struct {
	gvr schema.GroupVersionResource
	obj *unstructured.Unstructured
}

// createAll creates objects with bounded parallelism.
func createAll(t *testing.T, c *cluster.Client, objs []created) {
	t.Helper()
	ctx := context.Background()
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, o := range objs {
		wg.Add(1)
		sem <- struct{}{}
		go func(o created) {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := c.Dynamic().Resource(o.gvr).Namespace(o.obj.GetNamespace()).Create(ctx, o.obj, metav1.CreateOptions{})
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}(o)
	}
	wg.Wait()
	require.NoError(t, firstErr)
}

func refOf(o created) object.Ref { return object.RefOf(o.obj) }
