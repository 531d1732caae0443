package daemon

import (
	"context"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
)

// clientPool keeps one connection per cluster block from cycle to cycle, so that what a
// connection learns once (the server version, discovery, the OpenAPI documents and the
// schemas parsed from them) is not asked for again by every cycle. The pool is emptied after a
// cycle that wrote something or failed, and at every resync: then CRDs may have changed, or a
// credential.
type clientPool struct {
	mu      sync.Mutex
	clients map[string]pooledClient
	differs map[string]plan.Differ
}

type pooledClient struct {
	access cluster.Access
	client observe.Cluster
}

func newClientPool() *clientPool {
	return &clientPool{clients: map[string]pooledClient{}, differs: map[string]plan.Differ{}}
}

// reset forgets every connection.
func (p *clientPool) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients = map[string]pooledClient{}
	p.differs = map[string]plan.Differ{}
}

// connector returns a connector that reuses the pool's connection of a cluster block while its
// access stays the same, connecting through connect otherwise.
func (p *clientPool) connector(connect planner.Connector) planner.Connector {
	return func(name string, access cluster.Access) (observe.Cluster, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c, ok := p.clients[name]; ok && c.access == access {
			return c.client, nil
		}
		c, err := connect(name, access)
		if err != nil {
			return nil, err
		}
		p.clients[name] = pooledClient{access: access, client: c}
		delete(p.differs, name)
		return c, nil
	}
}

// differFactory returns a factory that keeps one differ per pooled connection.
func (p *clientPool) differFactory(differs planner.DifferFactory) planner.DifferFactory {
	return func(name string, c observe.Cluster) (plan.Differ, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		pooled, ok := p.clients[name]
		if ok && pooled.client == unwrap(c) {
			if d, ok := p.differs[name]; ok {
				return d, nil
			}
		}
		d, err := differs(name, c)
		if err != nil {
			return nil, err
		}
		if ok && pooled.client == unwrap(c) {
			p.differs[name] = d
		}
		return d, nil
	}
}

// unwrap returns the connection under a cachedCluster.
func unwrap(c observe.Cluster) observe.Cluster {
	if cc, ok := c.(*cachedCluster); ok {
		return cc.Client
	}
	return c
}

// cachedCluster serves a plan's reads of owned objects from the watches' informers: a LIST with
// the inventory selector of a watched resource, and a GET of an object such a LIST would
// return, cost no request; so do the lists render functions read (the Shoots on a seed), from
// the list watches' informers. Anything else (a resource not watched yet, an object without the
// inventory label, discovery and OpenAPI the first time) goes to the API server. Writes go to
// the API server through the embedded client, but the daemon writes only after planning again
// from the API server (see Daemon.run).
type cachedCluster struct {
	*cluster.Client
	name  string
	watch *watcher
	lists *listWatcher
}

// cachedConnector wraps the connections of connect, where they are live clients, in
// cachedClusters.
func cachedConnector(connect planner.Connector, w *watcher, lists *listWatcher) planner.Connector {
	return func(name string, access cluster.Access) (observe.Cluster, error) {
		c, err := connect(name, access)
		if err != nil {
			return nil, err
		}
		if client, ok := c.(*cluster.Client); ok {
			return &cachedCluster{Client: client, name: name, watch: w, lists: lists}, nil
		}
		return c, nil
	}
}

// List implements observe.Cluster.
func (c *cachedCluster) List(ctx context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	if labelSelector == inventory.Selector(c.watch.landscape) {
		if store := c.watch.store(c.name, gvr); store != nil {
			return sortedCopies(store, namespace), nil
		}
	}
	if c.lists != nil {
		ref := render.ListRef{Cluster: c.name, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: namespace, LabelSelector: labelSelector}
		if store := c.lists.store(ref); store != nil {
			return sortedCopies(store, ""), nil // the informer lists exactly this namespace
		}
	}
	return c.Client.List(ctx, gvr, namespace, labelSelector)
}

// sortedCopies are copies of the objects of a store in namespace ("" for all), in the order the
// API server lists: by namespace, then name.
func sortedCopies(store cache.Store, namespace string) []unstructured.Unstructured {
	items := store.List()
	out := make([]unstructured.Unstructured, 0, len(items))
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		if !ok || (namespace != "" && u.GetNamespace() != namespace) {
			continue
		}
		out = append(out, *u.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out
}

// Get implements observe.Cluster.
func (c *cachedCluster) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	if store := c.watch.store(c.name, gvr); store != nil {
		key := name
		if namespace != "" {
			key = namespace + "/" + name
		}
		if obj, found, err := store.GetByKey(key); err == nil && found {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				return u.DeepCopy(), nil
			}
		}
	}
	return c.Client.Get(ctx, gvr, namespace, name)
}
