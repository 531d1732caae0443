package readiness

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// Retry pacing after a failed LIST or WATCH, and the shortest watch that does not count as a
// failure (a server that closes every watch at once must not be hammered).
const (
	minBackoff       = 200 * time.Millisecond
	maxBackoff       = 5 * time.Second
	shortWatchWindow = time.Second
)

// watchGroup follows one group until all its targets are ready or ctx ends.
func (w *waiter) watchGroup(ctx context.Context, g watchGroup) {
	var (
		rv       string
		relist   = true
		holding  bool
		backoff  = minBackoff
		resource = w.resource(g)
	)
	defer func() {
		if holding {
			<-w.slots
		}
	}()
	for ctx.Err() == nil {
		if relist {
			var err error
			rv, err = w.list(ctx, resource, g)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				w.recordUnseen(g, notReady(fmt.Sprintf("cannot list %s: %v", g.GVR.GroupResource(), err)))
				if !sleep(ctx, &backoff) {
					return
				}
				continue
			}
			relist = false
		}
		if w.groupReady(g) {
			return
		}
		if !holding {
			select {
			case w.slots <- struct{}{}:
			default:
				// Queue for a slot; the LIST above is stale by the time one frees up.
				select {
				case w.slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				relist = true
				holding = true
				continue
			}
			holding = true
		}
		started := time.Now()
		var end watchEnd
		rv, end = w.follow(ctx, resource, g, rv)
		switch {
		case end == watchExpired:
			relist = true // the resourceVersion is too old: relist at once
			continue
		case end == watchFailed:
			relist = true
		case time.Since(started) >= shortWatchWindow:
			backoff = minBackoff // a healthy watch that ended: resume from rv
			continue
		}
		if w.groupReady(g) || !sleep(ctx, &backoff) {
			return
		}
	}
}

// watchEnd says why follow returned.
type watchEnd int

const (
	watchClosed  watchEnd = iota // ready, cancelled, or closed by the server: resume from rv
	watchExpired                 // 410 Gone: rv is no longer served, relist
	watchFailed                  // any other error: relist after a pause
)

// resource returns the client for the group's resource and namespace.
func (w *waiter) resource(g watchGroup) dynamic.ResourceInterface {
	if g.Namespace == "" {
		return w.client.Resource(g.GVR)
	}
	return w.client.Resource(g.GVR).Namespace(g.Namespace)
}

// selector narrows LIST and WATCH to the one object of a single-target group; bigger groups read
// the namespace and filter, which is still one request per group.
func selector(g watchGroup) string {
	if len(g.Names) == 1 {
		return fields.OneTermEqualSelector("metadata.name", g.Names[0]).String()
	}
	return ""
}

// list records the current state of every target of g and returns the list's resourceVersion.
func (w *waiter) list(ctx context.Context, resource dynamic.ResourceInterface, g watchGroup) (string, error) {
	list, err := resource.List(ctx, metav1.ListOptions{FieldSelector: selector(g)})
	if err != nil {
		return "", err
	}
	found := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		found[list.Items[i].GetName()] = &list.Items[i]
	}
	for _, name := range g.Names {
		w.observe(g.target(name), found[name]) // nil: not found
	}
	return list.GetResourceVersion(), nil
}

// follow watches g from rv until all its targets are ready, the context ends or the watch closes
// (watchClosed, with the last resourceVersion seen), the resourceVersion expired (watchExpired), or
// the watch failed (watchFailed).
func (w *waiter) follow(ctx context.Context, resource dynamic.ResourceInterface, g watchGroup, rv string) (string, watchEnd) {
	watcher, err := resource.Watch(ctx, metav1.ListOptions{
		FieldSelector:       selector(g),
		ResourceVersion:     rv,
		AllowWatchBookmarks: true,
	})
	if err != nil {
		return rv, w.watchError(g, err)
	}
	defer watcher.Stop()
	wanted := map[string]bool{}
	for _, n := range g.Names {
		wanted[n] = true
	}
	for {
		select {
		case <-ctx.Done():
			return rv, watchClosed
		case ev, open := <-watcher.ResultChan():
			if !open {
				return rv, watchClosed
			}
			switch ev.Type {
			case watch.Error:
				// After 410 Gone (resourceVersion too old) and every other in-stream error the only
				// safe resumption point is a fresh LIST.
				return rv, w.watchError(g, apierrors.FromObject(ev.Object))
			case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
				obj, isObj := ev.Object.(*unstructured.Unstructured)
				if !isObj {
					continue
				}
				if v := obj.GetResourceVersion(); v != "" {
					rv = v
				}
				name := obj.GetName()
				if ev.Type == watch.Bookmark || !wanted[name] {
					continue
				}
				if ev.Type == watch.Deleted {
					obj = nil
				}
				w.observe(g.target(name), obj)
				if w.groupReady(g) {
					return rv, watchClosed
				}
			}
		}
	}
}

// watchError classifies a failed watch and records a failure (other than expiry) as the reason of
// targets not seen yet.
func (w *waiter) watchError(g watchGroup, err error) watchEnd {
	if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		return watchExpired
	}
	w.recordUnseen(g, notReady(fmt.Sprintf("cannot watch %s: %v", g.GVR.GroupResource(), err)))
	return watchFailed
}

// sleep waits for the current backoff, doubles it up to maxBackoff, and reports false when ctx
// ended first.
func sleep(ctx context.Context, backoff *time.Duration) bool {
	t := time.NewTimer(*backoff)
	defer t.Stop()
	*backoff = min(*backoff*2, maxBackoff)
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
