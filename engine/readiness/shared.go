package readiness

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// Watches are watches of one cluster shared by every wait on it: one LIST and one WATCH per
// resource, cluster-wide, opened by the first wait that needs the resource and kept open until
// Close. Components waiting for objects of the same kind (the Deployments of a seed's control
// planes) then neither list nor watch on their own: an apply from empty opens a watch per kind it
// waits for, not one per component and namespace, and a component whose objects are ready by the
// time it waits learns so from what the watch already holds, without a request.
//
// A feed keeps, per object, only its kind and readiness (by Check's rules), not the object.
type Watches struct {
	client dynamic.Interface
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	feeds map[schema.GroupVersionResource]*feed
	// changed is closed and replaced whenever any feed changes, waking every wait.
	changed chan struct{}
}

// feed is what one shared watch knows of its resource.
type feed struct {
	// synced is set once a LIST succeeded; until then err is why none did yet.
	synced  bool
	err     error
	objects map[objectKey]observed
}

type objectKey struct{ namespace, name string }

// observed is an object's kind and readiness as last seen.
type observed struct {
	kind   string
	status Status
}

// NewWatches returns the shared watches of the cluster client reaches; Close ends them.
func NewWatches(client dynamic.Interface) *Watches {
	ctx, cancel := context.WithCancel(context.Background())
	return &Watches{client: client, ctx: ctx, cancel: cancel, feeds: map[schema.GroupVersionResource]*feed{}, changed: make(chan struct{})}
}

// Close ends every watch and returns once they have ended.
func (w *Watches) Close() {
	w.cancel()
	w.wg.Wait()
}

// Wait is Wait on the shared watches: it returns as Wait does, nil once every target is ready, a
// *NotReadyError wrapping ErrTerminal on a terminal status or the context's error when it ends
// first. Targets are judged with default options (WaitOptions.Check is not used: the watches
// judge each object once for every wait). MaxWatches is not used either: there is a watch per
// resource whatever waits.
func (w *Watches) Wait(ctx context.Context, targets []Target, opts WaitOptions) error {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	wt := &waiter{opts: opts, statuses: map[Target]TargetStatus{}, stop: func() {}}
	for _, t := range targets {
		wt.statuses[t] = TargetStatus{Target: t, Status: notReady("not observed yet")}
	}
	for _, t := range targets {
		w.start(t.GVR)
	}
	for {
		changed := w.judge(wt, targets)
		if wt.allReady() || wt.terminal {
			return wt.result(ctx)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return wt.result(ctx)
		case <-w.ctx.Done():
			return wt.result(w.ctx) // closed: the wait ends as cancelled
		}
	}
}

// judge records what the feeds know of the targets and returns the channel closed at the next
// change.
func (w *Watches) judge(wt *waiter, targets []Target) <-chan struct{} {
	type seen struct {
		t    Target
		kind string
		st   Status
		skip bool
	}
	w.mu.Lock()
	changed := w.changed
	out := make([]seen, 0, len(targets))
	for _, t := range targets {
		f := w.feeds[t.GVR]
		switch o, found := f.objects[objectKey{t.Namespace, t.Name}]; {
		case found:
			out = append(out, seen{t: t, kind: o.kind, st: o.status})
		case f.synced:
			out = append(out, seen{t: t, st: notReady("not found")})
		case f.err != nil:
			out = append(out, seen{t: t, st: notReady(fmt.Sprintf("cannot list %s: %v", t.GVR.GroupResource(), f.err))})
		default:
			out = append(out, seen{skip: true})
		}
	}
	w.mu.Unlock()
	for _, s := range out {
		if !s.skip {
			wt.record(s.t, s.kind, s.st)
		}
	}
	return changed
}

// allReady reports whether every target is ready.
func (wt *waiter) allReady() bool {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	for _, s := range wt.statuses {
		if !s.Status.Ready {
			return false
		}
	}
	return true
}

// start opens the shared watch of gvr unless it is open.
func (w *Watches) start(gvr schema.GroupVersionResource) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, open := w.feeds[gvr]; open {
		return
	}
	w.feeds[gvr] = &feed{objects: map[objectKey]observed{}}
	w.wg.Go(func() { w.follow(gvr) })
}

// update changes a feed under the lock and wakes every wait.
func (w *Watches) update(gvr schema.GroupVersionResource, change func(f *feed)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	change(w.feeds[gvr])
	close(w.changed)
	w.changed = make(chan struct{})
}

// follow keeps gvr's feed current until Close: a LIST, then a WATCH from its resourceVersion,
// resumed where it ended, and a new LIST when the resourceVersion expired or the watch failed.
func (w *Watches) follow(gvr schema.GroupVersionResource) {
	resource := w.client.Resource(gvr)
	backoff := minBackoff
	var rv string
	for w.ctx.Err() == nil {
		if rv == "" {
			list, err := resource.List(w.ctx, metav1.ListOptions{})
			if err != nil {
				if w.ctx.Err() != nil {
					return
				}
				w.update(gvr, func(f *feed) { f.err = err })
				if !sleep(w.ctx, &backoff) {
					return
				}
				continue
			}
			objects := make(map[objectKey]observed, len(list.Items))
			for i := range list.Items {
				o := &list.Items[i]
				objects[objectKey{o.GetNamespace(), o.GetName()}] = observed{kind: o.GetKind(), status: Check(o)}
			}
			w.update(gvr, func(f *feed) { f.objects, f.synced, f.err = objects, true, nil })
			rv = list.GetResourceVersion()
		}
		started := time.Now()
		var end watchEnd
		rv, end = w.watch(resource, gvr, rv)
		switch {
		case end == watchExpired:
			rv = ""
			continue
		case end == watchFailed:
			rv = ""
		case time.Since(started) >= shortWatchWindow:
			backoff = minBackoff
			continue
		}
		if !sleep(w.ctx, &backoff) {
			return
		}
	}
}

// watch follows gvr from rv until the watch ends, returning the last resourceVersion seen and
// why it ended.
func (w *Watches) watch(resource dynamic.ResourceInterface, gvr schema.GroupVersionResource, rv string) (string, watchEnd) {
	watcher, err := resource.Watch(w.ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return rv, watchExpired
		}
		return rv, watchFailed
	}
	defer watcher.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return rv, watchClosed
		case ev, open := <-watcher.ResultChan():
			if !open {
				return rv, watchClosed
			}
			if ev.Type == watch.Error {
				if err := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					return rv, watchExpired
				}
				return rv, watchFailed
			}
			o, isObj := ev.Object.(*unstructured.Unstructured)
			if !isObj {
				continue
			}
			if v := o.GetResourceVersion(); v != "" {
				rv = v
			}
			key := objectKey{o.GetNamespace(), o.GetName()}
			switch ev.Type {
			case watch.Added, watch.Modified:
				seen := observed{kind: o.GetKind(), status: Check(o)}
				w.update(gvr, func(f *feed) { f.objects[key] = seen })
			case watch.Deleted:
				w.update(gvr, func(f *feed) { delete(f.objects, key) })
			}
		}
	}
}
