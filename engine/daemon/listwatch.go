package daemon

import (
	"context"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/declarative-gardener/gardener/engine/render"
)

// listWatcher keeps one informer per list that render functions read (render.Input.List), such
// as the Shoots a seed lists to deploy the control planes of those users created through the
// Gardener API, and calls trigger when the list changes in a way that can change a rendering:
// an object appears or goes, its specification changes (its generation moves) or its deletion
// starts. Objects the landscape owns are the watcher's; these are anyone's, so status writes,
// which never change what the engine renders from them, do not trigger. Such a change asks for
// the whole landscape, with one exception: someone other than the engine (a user,
// gardener-controller-manager) changed an object an instance of an independent type renders,
// a Shoot a shoot block declares, which only that shoot's cycle follows (render functions leave
// declared Shoots out of what they render from lists: apishoots.shootsOn). The engine's own
// writes of a declared Shoot still ask for the whole landscape: what it changed there may change
// what others render from the list (an extension's installations follow the Shoots' types).
type listWatcher struct {
	trigger    func(instance string)
	instanceOf func(*unstructured.Unstructured) string

	mu      sync.Mutex
	key     string
	stop    context.CancelFunc
	running sync.WaitGroup
	// informers are the running informers by list (render.ListRef.Key); their stores answer a
	// plan's lists from the caches (cachedCluster).
	informers map[string]cache.SharedIndexInformer
}

// ensure watches exactly refs (with the given clients by cluster block name), restarting the
// informers when the set changed since the last call.
func (w *listWatcher) ensure(ctx context.Context, clients map[string]dynamic.Interface, refs []render.ListRef) {
	keys := make([]string, 0, len(refs))
	for _, r := range refs {
		keys = append(keys, r.Key())
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	w.mu.Lock()
	defer w.mu.Unlock()
	if key == w.key {
		return
	}
	w.stopLocked()
	w.key = key
	wctx, cancel := context.WithCancel(ctx)
	w.stop = cancel
	w.informers = map[string]cache.SharedIndexInformer{}
	for _, ref := range refs {
		client, ok := clients[ref.Cluster]
		if !ok {
			continue
		}
		selector := ref.LabelSelector
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, ref.Namespace, func(o *metav1.ListOptions) {
			o.LabelSelector = selector
		})
		inf := factory.ForResource(ref.GVR()).Informer()
		w.informers[ref.Key()] = inf
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(_ any, initial bool) {
				if !initial {
					w.trigger("")
				}
			},
			UpdateFunc: func(old, new any) {
				if renderedDifferently(old, new) {
					w.trigger(w.attribute(old, new))
				}
			},
			DeleteFunc: func(any) { w.trigger("") },
		})
		factory.Start(wctx.Done())
		w.running.Add(1)
		go func() {
			defer w.running.Done()
			<-wctx.Done()
			factory.Shutdown()
		}()
	}
}

// attribute is the instance of an independent type an update by someone other than the engine
// concerns, "" for the whole landscape.
func (w *listWatcher) attribute(old, new any) string {
	n, ok := new.(*unstructured.Unstructured)
	if !ok || w.instanceOf == nil || !changedByOthers(old, new) {
		return ""
	}
	return w.instanceOf(n)
}

// renderedDifferently reports whether an update can change what is rendered from the object: its
// generation (its specification) moved, its deletion started, or its labels changed (a Shoot that
// a landscape's shoot block adopted).
func renderedDifferently(old, new any) bool {
	o, ok1 := old.(*unstructured.Unstructured)
	n, ok2 := new.(*unstructured.Unstructured)
	if !ok1 || !ok2 || o.GetResourceVersion() == n.GetResourceVersion() {
		return false
	}
	return o.GetGeneration() != n.GetGeneration() ||
		(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
		!equalStrings(o.GetLabels(), n.GetLabels())
}

func equalStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// stopLocked stops the informers; the caller holds w.mu.
func (w *listWatcher) stopLocked() {
	if w.stop != nil {
		w.stop()
		w.running.Wait()
	}
	w.stop, w.key, w.informers = nil, "", nil
}

// store returns the synced informer store of a list, or nil when the list is not watched or its
// informer has not listed yet.
func (w *listWatcher) store(ref render.ListRef) cache.Store {
	w.mu.Lock()
	inf := w.informers[ref.Key()]
	w.mu.Unlock()
	if inf == nil || !inf.HasSynced() {
		return nil
	}
	return inf.GetStore()
}

// close stops the informers.
func (w *listWatcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
}
