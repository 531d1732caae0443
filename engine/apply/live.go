package apply

import (
	"context"
	"fmt"
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
// the component's readiness may take.
func (e *Executor) resolveLive(ctx context.Context, component string, d *plan.Desired) (*plan.Desired, error) {
	timeout := e.timeoutOf(component)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var missing render.LiveRef
	var lastErr error
	lookup := func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		missing = ref
		client, ok := e.Clients[ref.Cluster]
		if !ok {
			return nil, fmt.Errorf("cluster %s is not one of the landscape's", ref.Cluster)
		}
		obj, err := client.Resource(ref.GVR()).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return obj, err
	}
	for {
		resolved, ok, err := render.ResolveLiveObject(d.Object.Object, lookup)
		if err == nil && ok {
			out := *d
			out.Object = &unstructured.Unstructured{Object: resolved}
			return &out, nil
		}
		// A read error may be transient (an API server restarting): it is retried like a value
		// that is not there yet, and reported if it outlasts the wait.
		lastErr = err
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return nil, fmt.Errorf("%s %s: %w", d.Object.GetKind(), d.Object.GetName(), lastErr)
			}
			return nil, fmt.Errorf("%s %s: %s is still not set after %s", d.Object.GetKind(), d.Object.GetName(), missing, timeout)
		case <-time.After(livePoll):
		}
	}
}
