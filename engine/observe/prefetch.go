package observe

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Prefetch holds LISTs started before Observe asks for them. A plan knows the kinds a landscape
// applied before (from its state) long before it knows what the landscape renders now, and
// Observe lists those kinds cluster-wide whatever is rendered: started early, those LISTs run
// while the landscape renders, and a plan with few changes costs about the larger of the two
// rather than their sum. Observe takes a prefetched LIST only for exactly the request it would
// make (resource, namespace, selector), so what it sees is what it would have read itself,
// only earlier; rendering reads objects it reuses from the same LISTs (Get).
type Prefetch struct {
	mu    sync.Mutex
	lists map[listKey]*prefetched
}

type listKey struct {
	gvr                 schema.GroupVersionResource
	namespace, selector string
}

// prefetched is one LIST, done once done is closed.
type prefetched struct {
	done  chan struct{}
	items []unstructured.Unstructured
	err   error
	// index finds items by namespace/name, for Get; built on first use.
	indexOnce sync.Once
	index     map[string]*unstructured.Unstructured
}

// StartPrefetch lists kinds of c cluster-wide with selector in the background, at most
// parallelism at a time, each in the version discovery prefers or the one versions names (the
// version Observe will list it in, Request.Versions). Kinds c does not serve (or cannot list)
// are left to Observe, which reports them; so is everything when discovery fails.
func StartPrefetch(ctx context.Context, c Cluster, selector string, kinds []schema.GroupKind, versions map[schema.GroupKind]string, parallelism int) *Prefetch {
	p := &Prefetch{lists: map[listKey]*prefetched{}}
	if parallelism <= 0 {
		parallelism = DefaultParallelism
	}
	served, err := discover(ctx, c, &Requests{})
	if err != nil {
		return p
	}
	type call struct {
		key listKey
		f   *prefetched
	}
	var calls []call
	for _, gk := range kinds {
		res, ok := served[gk]
		res, _ = inVersion(res, versions[gk])
		key := listKey{gvr: res.GVR(), selector: selector}
		if _, dup := p.lists[key]; !ok || dup || !hasVerb(res, "list") {
			continue
		}
		// Registered before StartPrefetch returns, so that Observe finds every one of them.
		f := &prefetched{done: make(chan struct{})}
		p.lists[key] = f
		calls = append(calls, call{key, f})
	}
	go func() {
		_ = forEach(ctx, len(calls), parallelism, func(ctx context.Context, i int) error {
			f := calls[i].f
			f.items, f.err = c.List(ctx, calls[i].key.gvr, "", selector)
			close(f.done)
			return nil // every LIST is made; Observe sees each one's error
		})
		// LISTs the context's end kept from starting report that end.
		for _, call := range calls {
			select {
			case <-call.f.done:
			default:
				call.f.err = ctx.Err()
				close(call.f.done)
			}
		}
	}()
	return p
}

// take returns the prefetched LIST for exactly this request, waiting for it, or false when none
// was started.
func (p *Prefetch) take(ctx context.Context, gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, bool, error) {
	if p == nil {
		return nil, false, nil
	}
	p.mu.Lock()
	f, ok := p.lists[listKey{gvr: gvr, namespace: namespace, selector: selector}]
	p.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	select {
	case <-f.done:
		return f.items, true, f.err
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// Get answers a GET of one object from the prefetched LIST of its resource: a copy of the object
// when the LIST returned it. ok is false when it cannot answer: nothing of the resource was
// prefetched, the LIST failed, or the object is not among the labelled ones the LIST returned
// (it may still exist without the landscape's labels), so that the caller reads it itself.
// Rendering reads the Secrets it generated before this way, one LIST instead of one GET each.
func (p *Prefetch) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (obj *unstructured.Unstructured, ok bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	var f *prefetched
	for key, l := range p.lists {
		if key.gvr == gvr && key.namespace == "" {
			f = l
			break
		}
	}
	p.mu.Unlock()
	if f == nil {
		return nil, false
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, false
	}
	if f.err != nil {
		return nil, false
	}
	f.indexOnce.Do(func() {
		f.index = make(map[string]*unstructured.Unstructured, len(f.items))
		for i := range f.items {
			f.index[f.items[i].GetNamespace()+"/"+f.items[i].GetName()] = &f.items[i]
		}
	})
	found := f.index[namespace+"/"+name]
	if found == nil {
		return nil, false
	}
	return found.DeepCopy(), true // the caller may change it; Observe reads the original
}
