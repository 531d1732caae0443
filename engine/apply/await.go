package apply

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

// awaitPoll is how often apply renders a part again while the object it follows is missing.
const awaitPoll = time.Second

// Awaited is what apply needs to render a part during apply that follows an object another
// controller creates (render.Await).
type Awaited struct {
	// Await is the part's render function and what it waits for.
	Await *render.Await
	// Input is the rendering's input without live reads, which apply adds.
	Input render.Input
}

// awaitedObjects renders a part rendered during apply (render.Await) with live reads, polling
// while the object it follows is missing, up to the part's readiness timeout: the parts creating
// what makes the other controller create it are applied before it, so that the object appears
// within seconds. It returns the part's objects, stamped as the plan stamps the objects it
// renders, all to be written; the writes are server-side applies, so objects that exist already
// are updated.
func (e *Executor) awaitedObjects(ctx context.Context, c *plan.Component) (componentObjects, error) {
	aw := e.Awaits[c.Address]
	if aw == nil || aw.Await == nil || aw.Await.Render == nil {
		return componentObjects{}, fmt.Errorf("%s is rendered during apply, but nothing renders it", c.Address)
	}
	timeout := e.timeoutOf(c.Address)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in := liveInput(ctx, e.Clients, aw.Input)
	for {
		out, err := aw.Await.Render(in)
		var p permanent
		switch {
		case errors.As(err, &p):
			return componentObjects{}, err
		case err == nil && out != nil:
			e.recordReports(c.Address, out.StatusReports)
			return e.stampAwaited(c, out.Objects)
		case err != nil && !transient(err):
			return componentObjects{}, fmt.Errorf("render: %w", err)
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return componentObjects{}, fmt.Errorf("%s does not exist yet: %w", aw.Await.For, err)
			}
			return componentObjects{}, fmt.Errorf("%s still does not exist after %s", aw.Await.For, timeout)
		case <-time.After(awaitPoll):
		}
	}
}

// stampAwaited turns a part's objects rendered during apply into the plan's desired objects: the
// default namespace set where the kind is namespaced, the resource the cluster serves them by, the
// landscape's stamp; each is written.
func (e *Executor) stampAwaited(c *plan.Component, objects []render.Object) (componentObjects, error) {
	co := componentObjects{desired: map[desiredKey]*plan.Desired{}}
	for _, o := range objects {
		if render.HasLive(o.Object.Object) || render.Unprovided(o.Object.Object) {
			return co, fmt.Errorf("%s %s: a part rendered during apply cannot hold values known only after apply", o.Object.GetKind(), o.Object.GetName())
		}
		obj := o.Object.DeepCopy()
		gk := obj.GroupVersionKind().GroupKind()
		r, ok := e.served(o.Cluster, gk)
		if !ok {
			return co, fmt.Errorf("cluster %s does not serve %s (rendered during apply by %s)", o.Cluster, object.GroupKindString(gk), c.Address)
		}
		switch {
		case !r.Namespaced:
			obj.SetNamespace("")
		case obj.GetNamespace() == "" && o.DefaultNamespace != "":
			obj.SetNamespace(o.DefaultNamespace)
		case obj.GetNamespace() == "":
			return co, fmt.Errorf("%s %s has no namespace", object.GroupKindString(gk), obj.GetName())
		}
		d := &plan.Desired{Cluster: o.Cluster, Component: config.InstanceAddress(c.Address), Resource: r, Object: obj, Consume: o.Consume}
		if e.Restamp != nil {
			if err := e.Restamp(d); err != nil {
				return co, err
			}
		}
		ref := object.RefOf(obj)
		key := desiredKey{o.Cluster, ref}
		if _, dup := co.desired[key]; dup {
			return co, fmt.Errorf("%s in cluster %s is rendered twice", ref, o.Cluster)
		}
		co.desired[key] = d
		co.writes = append(co.writes, &plan.ObjectChange{Cluster: o.Cluster, APIVersion: obj.GetAPIVersion(), Ref: ref, Action: plan.Update})
		co.all = append(co.all, d)
		co.awaited = append(co.awaited, d)
	}
	return co, nil
}

// served is the resource a cluster serves a kind by, as the plan observed it.
func (e *Executor) served(cluster string, gk schema.GroupKind) (observe.Resource, bool) {
	if e.Served == nil {
		return observe.Resource{}, false
	}
	return e.Served(cluster, gk)
}

// liveInput is base with live reads through clients: the input of a rendering during apply,
// and of the conditions a status report derives after it (render.StatusReport), which must see
// the objects as the apply left them, not as the plan saw them.
func liveInput(ctx context.Context, clients map[string]dynamic.Interface, base render.Input) render.Input {
	in := base
	in.Observe, in.List = liveObserver(ctx, clients), liveLister(ctx, clients)
	return in
}

// liveObserver reads live objects for a rendering during apply (render.Input.Observe): nil for
// one that does not exist.
func liveObserver(ctx context.Context, clients map[string]dynamic.Interface) func(render.LiveRef) (*unstructured.Unstructured, error) {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		client, ok := clients[ref.Cluster]
		if !ok {
			return nil, permanent{fmt.Errorf("cluster %s is not one of the landscape's", ref.Cluster)}
		}
		obj, err := client.Resource(ref.GVR()).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", ref.ObjectKey(), err)
		}
		return obj, nil
	}
}

// liveLister reads live lists for a rendering during apply (render.Input.List): empty for a
// resource the cluster does not serve, as the plan's lists are.
func liveLister(ctx context.Context, clients map[string]dynamic.Interface) func(render.ListRef) ([]unstructured.Unstructured, error) {
	return func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		client, ok := clients[ref.Cluster]
		if !ok {
			return nil, permanent{fmt.Errorf("cluster %s is not one of the landscape's", ref.Cluster)}
		}
		list, err := client.Resource(ref.GVR()).Namespace(ref.Namespace).List(ctx, metav1.ListOptions{LabelSelector: ref.LabelSelector})
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("list %s: %w", ref.Key(), err)
		}
		return list.Items, nil
	}
}

// recordReports keeps the reports of a part rendered during apply for the status writer.
func (e *Executor) recordReports(component string, reports []render.StatusReport) {
	if len(reports) == 0 {
		return
	}
	e.reportsMu.Lock()
	defer e.reportsMu.Unlock()
	if e.reports == nil {
		e.reports = map[string][]render.StatusReport{}
	}
	e.reports[component] = reports
}

// AwaitedReports are the reports of the parts rendered during apply (render.Awaited.StatusReports), by
// component address: the plan could not know them.
func (e *Executor) AwaitedReports() map[string][]render.StatusReport {
	e.reportsMu.Lock()
	defer e.reportsMu.Unlock()
	out := make(map[string][]render.StatusReport, len(e.reports))
	for k, v := range e.reports {
		out[k] = v
	}
	return out
}
