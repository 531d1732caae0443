package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

// livePoll is how often apply reads an object again while waiting for a live value.
const livePoll = 500 * time.Millisecond

// resolveLive returns d with its render.LiveValue markers replaced by the values the live objects
// hold now. The component's dependencies are ready at this point, so the objects exist; a value a
// controller fills in later (a cloud provider's load balancer address) is waited for, as long as
// the component's readiness may take. Each pass reads every object once, so that two fields
// taken from one object (a record's type and value) agree. Errors that waiting cannot cure (a
// cluster the landscape lacks, no permission, a mangled marker) end the wait at once.
func (e *Executor) resolveLive(ctx context.Context, component string, d *plan.Desired) (*plan.Desired, error) {
	timeout := e.timeoutOf(component)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	subject := d.Object.GetKind() + " " + d.Object.GetName()
	for {
		read := map[string]*unstructured.Unstructured{}
		lookup := func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			key := ref.ObjectKey()
			if obj, ok := read[key]; ok {
				return obj, nil
			}
			client, ok := e.Clients[ref.Cluster]
			if !ok {
				return nil, permanent{fmt.Errorf("cluster %s is not one of the landscape's", ref.Cluster)}
			}
			obj, err := client.Resource(ref.GVR()).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				obj, err = nil, nil
			case err != nil && !transient(err):
				return nil, permanent{err}
			}
			if err == nil {
				read[key] = obj
			}
			return obj, err
		}
		resolved, ok, err := render.ResolveLiveObject(d.Object.Object, lookup)
		var p permanent
		switch {
		case err == nil && ok:
			out := *d
			out.Object = &unstructured.Unstructured{Object: resolved}
			return &out, nil
		case errors.As(err, &p), err != nil && errors.Is(err, render.ErrMangledLive):
			return nil, fmt.Errorf("%s: %w", subject, err)
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return nil, fmt.Errorf("%s: %w", subject, err)
			}
			return nil, fmt.Errorf("%s: %s still not set after %s", subject, unresolved(resolved), timeout)
		case <-time.After(livePoll):
		}
	}
}

// permanent marks an error that waiting does not cure.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// transient reports whether a read error may go away by itself: the API server busy or
// restarting, the connection lost.
func transient(err error) bool {
	var netErr net.Error
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "connection refused")
}

// unresolved names the live fields still missing in obj, sorted.
func unresolved(obj map[string]any) string {
	seen := map[string]bool{}
	render.MapStrings(obj, func(v string) string {
		refs, _ := render.LiveRefs(v)
		for _, r := range refs {
			seen[r.String()] = true
		}
		return v
	})
	return strings.Join(slices.Sorted(maps.Keys(seen)), "; ")
}
