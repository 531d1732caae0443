package daemon

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/state"
)

// WatchTarget is one resource of one cluster whose owned objects the daemon watches.
type WatchTarget struct {
	Cluster string
	GVR     schema.GroupVersionResource
}

// headTarget is the state's head Secret: where the state cluster is and the Secret's namespace
// and name.
type headTarget struct {
	Cluster, Namespace, Name string
}

// watcher keeps one informer per watched resource on the objects carrying the landscape's
// inventory label, and calls trigger when something other than the engine changed or deleted
// one: drift is then repaired within seconds instead of at the next resync. It names the
// instance of an independent type (a shoot) whose object it was, where instanceOf finds one, so
// that the cycle plans that shoot only; "" asks for the whole landscape. The informers'
// stores double as the live state of plans (cachedCluster), and one more informer follows the
// state's head Secret, so that a plan can tell whether the state it knows is still current.
type watcher struct {
	landscape string
	trigger   func(instance string)
	// instanceOf attributes an object to an instance of an independent type; nil attributes
	// none.
	instanceOf func(*unstructured.Unstructured) string

	mu        sync.Mutex
	key       string
	stop      context.CancelFunc
	running   sync.WaitGroup
	informers map[string]map[schema.GroupVersionResource]cache.SharedIndexInformer
	head      headTarget
	headInf   cache.SharedIndexInformer
}

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// ensure watches exactly targets and the state head (with the given clients), restarting the
// informers when the set changed since the last call.
func (w *watcher) ensure(ctx context.Context, clients map[string]dynamic.Interface, targets []WatchTarget, head headTarget) {
	keys := make([]string, 0, len(targets))
	for _, t := range targets {
		keys = append(keys, t.Cluster+"|"+t.GVR.String())
	}
	sort.Strings(keys)
	key := w.landscape + "#" + strings.Join(keys, ",") + "#" + head.Cluster + "/" + head.Namespace + "/" + head.Name
	w.mu.Lock()
	defer w.mu.Unlock()
	if key == w.key {
		return
	}
	w.stopLocked()
	w.key = key
	wctx, cancel := context.WithCancel(ctx)
	w.stop = cancel
	w.informers = map[string]map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	byCluster := map[string][]schema.GroupVersionResource{}
	for _, t := range targets {
		byCluster[t.Cluster] = append(byCluster[t.Cluster], t.GVR)
	}
	var factories []dynamicinformer.DynamicSharedInformerFactory
	for name, gvrs := range byCluster {
		client, ok := clients[name]
		if !ok {
			continue
		}
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
			o.LabelSelector = inventory.Selector(w.landscape)
		})
		w.informers[name] = map[schema.GroupVersionResource]cache.SharedIndexInformer{}
		for _, gvr := range gvrs {
			inf := factory.ForResource(gvr).Informer()
			_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
				UpdateFunc: func(old, new any) {
					if changedByOthers(old, new) {
						w.trigger(w.attribute(new))
					}
				},
				DeleteFunc: func(obj any) { w.trigger(w.attribute(obj)) },
			})
			w.informers[name][gvr] = inf
		}
		factories = append(factories, factory)
	}
	w.head, w.headInf = head, nil
	if client, ok := clients[head.Cluster]; ok && head.Name != "" {
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, head.Namespace, func(o *metav1.ListOptions) {
			o.FieldSelector = "metadata.name=" + head.Name
		})
		w.headInf = factory.ForResource(secretsGVR).Informer()
		factories = append(factories, factory)
	}
	for _, factory := range factories {
		factory.Start(wctx.Done())
		w.running.Add(1)
		go func() {
			defer w.running.Done()
			<-wctx.Done()
			factory.Shutdown()
		}()
	}
}

// attribute is the instance of an independent type an event's object belongs to, "" for the
// whole landscape (an object that is not, or a deletion whose last state is unknown).
func (w *watcher) attribute(obj any) string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || w.instanceOf == nil {
		return ""
	}
	return w.instanceOf(u)
}

// stopLocked stops the informers; the caller holds w.mu.
func (w *watcher) stopLocked() {
	if w.stop != nil {
		w.stop()
		w.running.Wait()
	}
	w.stop, w.key, w.informers, w.headInf, w.head = nil, "", nil, nil, headTarget{}
}

// close stops the informers.
func (w *watcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked()
}

// store returns the synced informer store of a cluster's resource, or nil when the resource is
// not watched or its informer has not listed yet.
func (w *watcher) store(cluster string, gvr schema.GroupVersionResource) cache.Store {
	w.mu.Lock()
	inf := w.informers[cluster][gvr]
	w.mu.Unlock()
	if inf == nil || !inf.HasSynced() {
		return nil
	}
	return inf.GetStore()
}

// headVersion returns the lineage and serial the watched state head names; exists is false when
// there is no head (no state was written yet), ok false when the head is not watched or not
// synced, or watched at another place than want.
func (w *watcher) headVersion(want headTarget) (lineage string, serial int64, exists, ok bool) {
	w.mu.Lock()
	inf, head := w.headInf, w.head
	w.mu.Unlock()
	if inf == nil || head != want || !inf.HasSynced() {
		return "", 0, false, false
	}
	obj, found, err := inf.GetStore().GetByKey(head.Namespace + "/" + head.Name)
	if err != nil {
		return "", 0, false, false
	}
	if !found {
		return "", 0, false, true
	}
	u, isU := obj.(*unstructured.Unstructured)
	if !isU {
		return "", 0, false, false
	}
	lineage, serial, valid := state.HeadVersion(u.GetAnnotations())
	return lineage, serial, true, valid
}

// changedByOthers reports whether an update of an owned object came from someone other than
// the engine: a field manager other than the engine's wrote the object itself (not its status,
// which controllers keep updating) later than before. The engine's own applies, and the
// daemon's writes of its status ConfigMap (which the landscape may render), do not trigger
// another cycle.
func changedByOthers(old, new any) bool {
	o, ok1 := old.(*unstructured.Unstructured)
	n, ok2 := new.(*unstructured.Unstructured)
	if !ok1 || !ok2 || o.GetResourceVersion() == n.GetResourceVersion() {
		return false
	}
	before := map[string]time.Time{}
	for _, m := range o.GetManagedFields() {
		if m.Time != nil {
			before[m.Manager+"|"+string(m.Operation)+"|"+m.Subresource] = m.Time.Time
		}
	}
	for _, m := range n.GetManagedFields() {
		if m.Manager == inventory.FieldManager || m.Manager == StatusFieldManager || m.Subresource != "" {
			continue
		}
		k := m.Manager + "|" + string(m.Operation) + "|" + m.Subresource
		if m.Time == nil {
			continue
		}
		if t, seen := before[k]; !seen || m.Time.After(t) {
			return true
		}
	}
	return ownFieldsShrank(o, n)
}

// ownFieldsShrank reports whether fields the engine owned in the object's main resource are no
// longer its own, although nobody else took them: someone removed them (a JSON patch removing a
// field leaves no field manager behind).
func ownFieldsShrank(o, n *unstructured.Unstructured) bool {
	owned := func(u *unstructured.Unstructured) *fieldpath.Set {
		for _, m := range u.GetManagedFields() {
			if m.Manager == inventory.FieldManager && m.Subresource == "" && m.Operation == metav1.ManagedFieldsOperationApply && m.FieldsV1 != nil {
				set := &fieldpath.Set{}
				if err := set.FromJSON(bytes.NewReader(m.FieldsV1.Raw)); err != nil {
					return nil
				}
				return set
			}
		}
		return nil
	}
	before, after := owned(o), owned(n)
	if before == nil {
		return false
	}
	if after == nil {
		return true
	}
	return !before.Difference(after).Empty()
}
