package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Recorder keeps state in step with the cluster: the intent before objects are written (so an
// interrupted apply can be resumed and nothing is orphaned) and the result after.
type Recorder interface {
	// Intent records the objects a component is about to write and to delete; they stay pending
	// until Applied, so that an interruption at any point leaves them tracked.
	Intent(ctx context.Context, component string, objs []*plan.Desired, deletes []*plan.ObjectChange) error
	// Applied records a component's objects after they were written and found ready (with
	// their UIDs where the write returned them), and the objects it deleted.
	Applied(ctx context.Context, component string, applied []AppliedObject, deleted []plan.ObjectChange) error
}

// AppliedObject is an object of a component as the cluster stored it.
type AppliedObject struct {
	Cluster string
	Object  *unstructured.Unstructured
}

// Readiness waits until objects in a cluster are ready, or fails saying what is not.
type Readiness func(ctx context.Context, cluster string, objs []*unstructured.Unstructured, resources map[object.Ref]schema.GroupVersionResource) error

// Executor applies the components of one plan.
type Executor struct {
	// Clients are the dynamic clients of the landscape's clusters by cluster block name.
	Clients map[string]dynamic.Interface
	// Desired are the plan's rendered objects.
	Desired []*plan.Desired
	// ForceConflicts takes over fields other field managers own.
	ForceConflicts bool
	// TakeBack takes back, without ForceConflicts, the fields people changed (plan.People) in
	// objects the landscape owns: drift. A controller's field stays a conflict. Run sets it
	// unless the plan's conflicts are strict (plan.Plan.StrictConflicts).
	TakeBack bool
	// AllowDestroy holds the component addresses whose protected objects may be deleted or
	// replaced.
	AllowDestroy map[string]bool
	// Protected marks component addresses with lifecycle { prevent_destroy = true }.
	Protected map[string]bool
	// Ready waits for readiness; nil skips waiting.
	Ready Readiness
	// Timeout bounds each component's readiness wait.
	Timeout time.Duration
	// Timeouts override Timeout by component address (lifecycle { ready_timeout }).
	Timeouts map[string]time.Duration
	// Recorder records state; nil records nothing.
	Recorder Recorder
	// Lineage, when set, returns the lineage of the state the apply records into: every object
	// written is labelled with it (inventory.LineageLabel), also those planned before the
	// landscape had one (its first apply, whose first state write gives it one before any object
	// is written). Nil writes objects as planned.
	Lineage func() string
	// RetryFor is how long transient API errors are retried (zero: DefaultRetryFor).
	RetryFor time.Duration
	// resources maps kinds to resources for deletions.
	resources Resources
	// Restamp computes an object's configuration hash again once apply filled in its live
	// values (plan.Result.Restamp); nil keeps the plan's.
	Restamp func(d *plan.Desired) error
	// Live returns the object as the plan observed it, for recording unchanged objects with
	// their UIDs; nil records them without.
	Live func(cluster string, ref object.Ref) *unstructured.Unstructured
	// Finalize, when set, ends the deletion of an object the engine reports on as gardenlet
	// (a kind with a report finalizer, engine/kinds): once it is deleted, its Delete operation is
	// reported and the finalizer removed, which lets it go.
	Finalize func(ctx context.Context, o *plan.ObjectChange, apiVersion string) error
	// Reported are the objects the engine reports on itself (engine/report), which apply does
	// not wait to become ready.
	Reported map[desiredKey]bool
	// Awaits are the parts rendered during apply because they follow an object another
	// controller creates (render.Await), by component address.
	Awaits map[string]*Awaited
	// Served returns the resource a cluster serves a kind by, for the objects of parts rendered
	// during apply; nil serves none.
	Served func(cluster string, gk schema.GroupKind) (observe.Resource, bool)
	// byComponent indexes Desired by component address, built once.
	byComponent map[string][]*plan.Desired
	indexOnce   sync.Once
	// reports are the reports of parts rendered during apply (AwaitedReports).
	reports   map[string][]render.StatusReport
	reportsMu sync.Mutex
}

// WithResources sets how the resources of objects to delete are found.
func (e *Executor) WithResources(r Resources) *Executor { e.resources = r; return e }

// DefaultRetryFor is how long transient API errors are retried: long enough to ride out an API
// server restart (tests/apply stops one for ten seconds in the middle of an apply).
const DefaultRetryFor = time.Minute

// Retry delays grow from retryFirst by half each time up to retryCap, with up to 10% jitter.
const (
	retryFirst = 250 * time.Millisecond
	retryCap   = 5 * time.Second
)

type desiredKey struct {
	cluster string
	ref     object.Ref
}

// Apply is the Worker of one component.
func (e *Executor) Apply(ctx context.Context, c *plan.Component) error { return e.apply(ctx, ctx, c) }

// componentObjects are a component's planned objects sorted by what apply does with them.
type componentObjects struct {
	desired         map[desiredKey]*plan.Desired
	writes, deletes []*plan.ObjectChange
	// releases are objects handed to the Gardener controller that owns them now
	// (plan.ReasonReleased): unmarked and forgotten, never written or deleted.
	releases []*plan.ObjectChange
	// all are the objects recorded as the component's, awaited those readiness waits for.
	all, awaited []*plan.Desired
}

// objectsOf sorts a component's planned objects.
func (e *Executor) objectsOf(c *plan.Component) componentObjects {
	e.indexOnce.Do(func() {
		e.byComponent = map[string][]*plan.Desired{}
		for _, d := range e.Desired {
			e.byComponent[string(d.Component)] = append(e.byComponent[string(d.Component)], d)
		}
	})
	co := componentObjects{desired: map[desiredKey]*plan.Desired{}}
	for _, d := range e.byComponent[c.Address] {
		co.desired[desiredKey{d.Cluster, object.RefOf(d.Object)}] = d
	}
	for _, o := range c.Objects {
		d := co.desired[desiredKey{o.Cluster, o.Ref}]
		if o.Reason.Kind == plan.ReasonReleased {
			co.releases = append(co.releases, o)
			continue
		}
		switch o.Action {
		case plan.Delete:
			co.deletes = append(co.deletes, o)
			continue
		case plan.Create, plan.Update, plan.Replace:
			co.writes = append(co.writes, o)
		case plan.NoOp:
			if o.Reason.Kind == plan.ReasonMaintenanceWindow {
				// Held until its maintenance window: not written, not waited for, and the
				// state keeps what it recorded.
				continue
			}
			if o.Reason.Kind == plan.ReasonCreatedOnce {
				// A create-only object its consumer deleted: nothing to write or wait for, and
				// the state keeps recording it (what the recorder knew and this apply neither
				// wrote nor deleted stays), so that it is not created again.
				continue
			}
		}
		if d == nil {
			continue
		}
		co.all = append(co.all, d)
		// An unchanged create-only object belongs to its consumer, which may delete it any
		// moment (gardenlet its bootstrap kubeconfig): waiting for it could wait for nothing.
		// An object the engine reports on itself (a Shoot, a Seed) is ready once written: what
		// would make it ready is the engine's own report, which follows the instance's parts.
		if createOnly, _ := plan.CreateOnly(d.Object); (o.Action != plan.NoOp || !createOnly) && !e.Reported[desiredKey{o.Cluster, o.Ref}] { // validated when planned
			co.awaited = append(co.awaited, d)
		}
	}
	return co
}

// intents are the objects every component of components is about to write and delete, for
// recording them all at once before the first starts. Components whose protection forbids
// their changes are left out: they fail without writing anything.
func (e *Executor) intents(components []*plan.Component) []ComponentIntent {
	var out []ComponentIntent
	for _, c := range components {
		co := e.objectsOf(c)
		if len(co.all)+len(co.deletes) == 0 || e.checkProtection(c, co.writes, co.deletes) != nil {
			continue
		}
		out = append(out, ComponentIntent{Component: c.Address, Objects: co.all, Deletes: co.deletes})
	}
	return out
}

// apply writes with ctx and waits for readiness with waitCtx, so that an interruption can end
// the waits without cutting writes (and their state records) in half.
func (e *Executor) apply(ctx, waitCtx context.Context, c *plan.Component) error {
	co := e.objectsOf(c)
	if c.Action == plan.Read {
		var err error
		if co, err = e.awaitedObjects(waitCtx, c); err != nil {
			return err
		}
	}
	desired, writes, deletes, all, awaited := co.desired, co.writes, co.deletes, co.all, co.awaited
	if err := e.checkProtection(c, writes, deletes); err != nil {
		return err
	}
	if e.Recorder != nil && len(all)+len(deletes) > 0 {
		if err := e.Recorder.Intent(ctx, c.Address, all, deletes); err != nil {
			return fmt.Errorf("record intent: %w", err)
		}
	}
	applied := map[desiredKey]*unstructured.Unstructured{}
	sort.SliceStable(writes, func(i, j int) bool { return rank(writes[i]) < rank(writes[j]) })
	// Objects of one kind rank go out at once: nothing orders them among themselves, and the
	// cluster's bound on requests in flight (--parallelism) paces them. Ranks stay in order.
	for start := 0; start < len(writes); {
		end := start + 1
		for end < len(writes) && rank(writes[end]) == rank(writes[start]) {
			end++
		}
		same := writes[start:end]
		answers := make([]*unstructured.Unstructured, len(same))
		errs := make([]error, len(same))
		var wg sync.WaitGroup
		for i, o := range same {
			wg.Go(func() { answers[i], errs[i] = e.writeObject(ctx, waitCtx, c.Address, desired, o) })
		}
		wg.Wait()
		for i, o := range same {
			if errs[i] != nil {
				return errs[i] // the first in plan order, so that the same failure reads the same
			}
			applied[desiredKey{o.Cluster, o.Ref}] = answers[i]
		}
		// Custom resources of a CRD written here wait until it is established.
		if slices.ContainsFunc(same, func(o *plan.ObjectChange) bool { return isCRD(o.Ref) }) && e.Ready != nil {
			if err := e.waitReady(waitCtx, e.timeoutOf(c.Address), crdsOf(writes[:end], desired), applied); err != nil {
				return err
			}
		}
		start = end
	}
	if e.Ready != nil {
		if err := e.waitReady(waitCtx, e.timeoutOf(c.Address), awaited, applied); err != nil {
			return err
		}
	}
	sort.SliceStable(deletes, func(i, j int) bool { return rank(deletes[i]) > rank(deletes[j]) })
	var deleted []plan.ObjectChange
	for _, o := range deletes {
		if waitCtx.Err() != nil {
			return errInterrupted
		}
		if err := e.delete(ctx, o); err != nil {
			return err
		}
		deleted = append(deleted, *o)
	}
	// Deleted objects are gone before the component counts as done: what depends on them (a
	// controller finalizing its resources) must outlive them, and the state forgets them only
	// when they are really gone.
	if err := e.waitGone(waitCtx, deleted, e.timeoutOf(c.Address)); err != nil {
		return err
	}
	for _, o := range co.releases {
		if waitCtx.Err() != nil {
			return errInterrupted
		}
		if err := e.release(ctx, o); err != nil {
			return err
		}
		deleted = append(deleted, *o) // the state forgets a released object as a deleted one
	}
	if e.Recorder != nil {
		var objs []AppliedObject
		for _, d := range all {
			ref := object.RefOf(d.Object)
			u := applied[desiredKey{d.Cluster, ref}]
			if u == nil && e.Live != nil {
				u = e.Live(d.Cluster, ref) // unchanged: as the plan saw it
			}
			if u == nil {
				u = d.Object
			}
			objs = append(objs, AppliedObject{Cluster: d.Cluster, Object: u})
		}
		if err := e.Recorder.Applied(ctx, c.Address, objs, deleted); err != nil {
			return fmt.Errorf("record state: %w", err)
		}
	}
	return nil
}

// writeObject writes one object of a component: its live values filled in, deleted first when
// it is replaced; it returns the object as the server stored it.
func (e *Executor) writeObject(ctx, waitCtx context.Context, component string, desired map[desiredKey]*plan.Desired, o *plan.ObjectChange) (*unstructured.Unstructured, error) {
	if waitCtx.Err() != nil {
		return nil, errInterrupted
	}
	d := desired[desiredKey{o.Cluster, o.Ref}]
	if d == nil {
		return nil, fmt.Errorf("%s: the plan has no object to write", o.Ref)
	}
	var err error
	if render.HasLive(d.Object.Object) {
		if d, err = e.resolveLive(waitCtx, component, d); err != nil {
			return nil, err
		}
		if e.Restamp != nil {
			if err := e.Restamp(d); err != nil {
				return nil, err
			}
		}
	}
	if o.Action == plan.Replace {
		if err := e.deleteAndWait(waitCtx, component, d); err != nil {
			return nil, err
		}
	}
	return e.write(ctx, e.withLineage(d), o)
}

// errInterrupted ends a component that was interrupted (Ctrl-C) before it finished.
var errInterrupted = errors.New("interrupted")

func rank(o *plan.ObjectChange) int { return kinds.ApplyRank(o.Ref.GroupKind()) }

func isCRD(r object.Ref) bool {
	return r.Group == "apiextensions.k8s.io" && r.Kind == "CustomResourceDefinition"
}

func crdsOf(writes []*plan.ObjectChange, desired map[desiredKey]*plan.Desired) []*plan.Desired {
	var out []*plan.Desired
	for _, o := range writes {
		if isCRD(o.Ref) {
			if d := desired[desiredKey{o.Cluster, o.Ref}]; d != nil {
				out = append(out, d)
			}
		}
	}
	return out
}

func (e *Executor) checkProtection(c *plan.Component, writes, deletes []*plan.ObjectChange) error {
	if e.AllowDestroy[c.Address] {
		return nil
	}
	var refused []string
	for _, o := range append(append([]*plan.ObjectChange(nil), writes...), deletes...) {
		if o.Action != plan.Delete && o.Action != plan.Replace {
			continue
		}
		if o.Reason.Kind == plan.ReasonRequested {
			// The objects' owner asked for the deletion, and confirmed it as Gardener demands
			// (a Shoot's confirmation.gardener.cloud/deletion): the control plane of a Shoot its
			// user deleted goes whole, etcd and namespace included, as gardenlet's delete flow
			// takes it.
			continue
		}
		if kinds.Protected(o.Ref) || e.Protected[c.Address] {
			refused = append(refused, fmt.Sprintf("%s (%s)", o.Ref, o.Action))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to delete or replace protected objects without --allow-destroy %s: %s", c.Address, strings.Join(refused, ", "))
}

// withLineage is d labelled with the lineage of the state the apply records into (Lineage),
// unless it carries it already.
func (e *Executor) withLineage(d *plan.Desired) *plan.Desired {
	if e.Lineage == nil {
		return d
	}
	lineage := e.Lineage()
	if lineage == "" || inventory.Lineage(d.Object) == lineage {
		return d
	}
	c := *d
	c.Object = d.Object.DeepCopy()
	inventory.SetLineage(c.Object, lineage)
	return &c
}

// write server-side applies one object as the engine's field manager; o is its plan.
func (e *Executor) write(ctx context.Context, d *plan.Desired, o *plan.ObjectChange) (*unstructured.Unstructured, error) {
	client, err := e.client(d.Cluster)
	if err != nil {
		return nil, err
	}
	gvr := d.Resource.GVR()
	gvr.Version = d.Object.GroupVersionKind().Version
	ri := client.Resource(gvr).Namespace(d.Object.GetNamespace())
	obj, force := d.Object, e.ForceConflicts || d.Import != ""
	var out *unstructured.Unstructured
	apply := func() error {
		return e.retry(ctx, func() error {
			var err error
			out, err = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: force})
			return err
		})
	}
	if force && len(d.Yield) > 0 {
		// Fields a Gardener controller decides are never taken over: try without force, and on
		// a conflict write them as they are now.
		force = false
		if err = apply(); apierrors.IsConflict(err) {
			if obj, err = e.yieldToLive(ctx, ri, d); err == nil {
				force = true
				err = apply()
			}
		}
	} else {
		err = apply()
	}
	if apierrors.IsConflict(err) && e.takesBack(o) {
		out, err = e.takeBack(ctx, ri, d, err)
	}
	// The API server's message may quote the object's values (plan.Desired.RedactError).
	if apierrors.IsConflict(err) {
		return nil, fmt.Errorf("%s in cluster %s: fields owned by other managers (apply with --force-conflicts to take them over): %w", d.Shown(), d.Cluster, d.RedactError(err))
	}
	if err != nil {
		return nil, fmt.Errorf("%s in cluster %s: apply: %w", d.Shown(), d.Cluster, d.RedactError(err))
	}
	return e.consume(ctx, client.Resource(gvr).Namespace(d.Object.GetNamespace()), d, out)
}

// takesBack reports whether the write of o takes back the fields people changed: an update of an
// object the landscape owns (not one it adopts, nor one it creates, which someone may have
// created since the plan), when conflicts are not strict.
func (e *Executor) takesBack(o *plan.ObjectChange) bool {
	return e.TakeBack && !e.ForceConflicts && o != nil && o.Action == plan.Update && o.Reason.Kind != plan.ReasonAdopt
}

// takeBackAttempts bounds how often takeBack reads an object again that changed under it.
const takeBackAttempts = 10

// takeBack writes an object whose write failed on conflicts (first), taking back the fields
// people changed (plan.People) and nothing of a controller's. Server-side apply forces all
// conflicts or none, so the conflicts are judged at one resourceVersion and the forced write
// is made at exactly that version: a resourceVersion in an applied configuration is a
// precondition. It reads the object, writes it without force at the version read (the
// conflicts it fails on are those of that version or a later one), and forces the write at the
// version read when every conflict is a person's: it succeeds only if nothing changed the
// object since, so a controller's write in between fails it and the object is read again. A
// controller's field among the conflicts fails the write as the conflict it is.
func (e *Executor) takeBack(ctx context.Context, ri dynamic.ResourceInterface, d *plan.Desired, first error) (*unstructured.Unstructured, error) {
	err := first
	for attempt := range takeBackAttempts {
		if managers := diff.ConflictManagers(err); slices.ContainsFunc(managers, func(m string) bool { return !plan.IsPerson(m) }) {
			return nil, err
		}
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, err
			case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
			}
		}
		var live *unstructured.Unstructured
		if gerr := e.retry(ctx, func() error {
			var err error
			live, err = ri.Get(ctx, d.Object.GetName(), metav1.GetOptions{})
			return err
		}); gerr != nil {
			return nil, fmt.Errorf("read it again to take back the fields people changed: %w", gerr)
		}
		obj := d.Object.DeepCopy()
		render.YieldToLive(obj, live, d.Yield)
		obj.SetResourceVersion(live.GetResourceVersion())
		var out *unstructured.Unstructured
		if out, err = e.applyAs(ctx, ri, obj, false); err == nil || !apierrors.IsConflict(err) {
			return out, err
		}
		managers := diff.ConflictManagers(err)
		if len(managers) == 0 {
			continue // changed since it was read
		}
		if slices.ContainsFunc(managers, func(m string) bool { return !plan.IsPerson(m) }) {
			return nil, err
		}
		if out, err = e.applyAs(ctx, ri, obj, true); err == nil || !apierrors.IsConflict(err) {
			return out, err
		}
	}
	return nil, fmt.Errorf("it kept changing while the fields people changed were taken back: %w", err)
}

// applyAs server-side applies obj as the engine's field manager, retrying transient errors.
func (e *Executor) applyAs(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, force bool) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := e.retry(ctx, func() error {
		var err error
		out, err = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: force})
		return err
	})
	return out, err
}

// yieldToLive is the desired object with the fields it yields (plan.Desired.Yield) as the live
// object has them now.
func (e *Executor) yieldToLive(ctx context.Context, ri dynamic.ResourceInterface, d *plan.Desired) (*unstructured.Unstructured, error) {
	var live *unstructured.Unstructured
	err := e.retry(ctx, func() error {
		var err error
		live, err = ri.Get(ctx, d.Object.GetName(), metav1.GetOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read it again to leave the fields other managers decide as they are: %w", err)
	}
	obj := d.Object.DeepCopy()
	render.YieldToLive(obj, live, d.Yield)
	return obj, nil
}

// patchAnnotations sets annotations of an object by a JSON merge patch (a nil value removes
// one), with resourceVersion rv as its precondition unless rv is empty, retrying transient
// errors.
func (e *Executor) patchAnnotations(ctx context.Context, ri dynamic.ResourceInterface, name, rv string, annotations map[string]any) (*unstructured.Unstructured, error) {
	metadata := map[string]any{"annotations": annotations}
	if rv != "" {
		metadata["resourceVersion"] = rv
	}
	patch, err := json.Marshal(map[string]any{"metadata": metadata})
	if err != nil {
		return nil, err
	}
	var out *unstructured.Unstructured
	err = e.retry(ctx, func() error {
		var err error
		out, err = ri.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: inventory.FieldManager})
		return err
	})
	return out, err
}

// consume removes the annotations the plan carried out (plan.Desired.Consume) from the object
// just written, each only while it still has the value the plan read. The patch carries the
// written object's resourceVersion: when someone changed the object since, it is left as it is
// and the next plan looks again.
func (e *Executor) consume(ctx context.Context, ri dynamic.ResourceInterface, d *plan.Desired, written *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	remove := map[string]any{}
	for key, value := range d.Consume {
		if live, ok := written.GetAnnotations()[key]; ok && live == value {
			remove[key] = nil
		}
	}
	if len(remove) == 0 {
		return written, nil
	}
	out, err := e.patchAnnotations(ctx, ri, written.GetName(), written.GetResourceVersion(), remove)
	switch {
	case apierrors.IsConflict(err):
		return written, nil
	case err != nil:
		return nil, fmt.Errorf("%s in cluster %s: remove the operation annotations it carried out: %w", object.RefOf(written), d.Cluster, err)
	}
	return out, nil
}

// release hands an object to the Gardener controller that owns it now: a JSON merge patch
// removes the landscape's label and annotations (inventory.UnmarkPatch) and nothing else. An
// empty server-side apply would do the same only by dropping every field the engine applied,
// which the new owner may rely on (gardener-controller-manager refuses a project namespace
// without the project labels, which it did not write itself when it adopted the namespace). No
// resourceVersion precondition: the owner writes the object at any time, and the patch touches
// only the engine's own keys. An object gone meanwhile needs no release.
func (e *Executor) release(ctx context.Context, o *plan.ObjectChange) error {
	ri, err := e.resourceInterface(o)
	if err != nil {
		return err
	}
	if len(o.OwnerReferences) > 0 {
		err = e.releaseToOwner(ctx, ri, o)
	} else {
		err = e.retry(ctx, func() error {
			_, err := ri.Patch(ctx, o.Ref.Name, types.MergePatchType, inventory.UnmarkPatch(), metav1.PatchOptions{FieldManager: inventory.FieldManager})
			return err
		})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s in cluster %s: release to %s: %w", o.Ref, o.Cluster, o.Reason.Detail, err)
	}
	return nil
}

// releaseToOwner releases an object and adds the owner references its new controller needs
// (plan.ObjectChange.OwnerReferences): a merge patch replaces the list whole, so it carries the
// live object's references with the new ones and, as its precondition, the resourceVersion they
// were read at; a conflict reads the object again.
func (e *Executor) releaseToOwner(ctx context.Context, ri dynamic.ResourceInterface, o *plan.ObjectChange) error {
	for {
		live, err := ri.Get(ctx, o.Ref.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		refs := live.GetOwnerReferences()
		for _, want := range o.OwnerReferences {
			if !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == want.UID }) {
				refs = append(refs, want)
			}
		}
		var unmark map[string]any
		if err := json.Unmarshal(inventory.UnmarkPatch(), &unmark); err != nil {
			return err
		}
		metadata := unmark["metadata"].(map[string]any)
		metadata["resourceVersion"], metadata["ownerReferences"] = live.GetResourceVersion(), refs
		patch, err := json.Marshal(unmark)
		if err != nil {
			return err
		}
		err = e.retry(ctx, func() error {
			_, err := ri.Patch(ctx, o.Ref.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: inventory.FieldManager})
			return err
		})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// deleteAndWait deletes an object to be replaced and waits until it is gone, so that its
// replacement is a new object.
func (e *Executor) deleteAndWait(ctx context.Context, component string, d *plan.Desired) error {
	client, err := e.client(d.Cluster)
	if err != nil {
		return err
	}
	gvr := d.Resource.GVR()
	ri := client.Resource(gvr).Namespace(d.Object.GetNamespace())
	ref := object.RefOf(d.Object)
	fg := metav1.DeletePropagationForeground
	err = e.retry(ctx, func() error { return ri.Delete(ctx, d.Object.GetName(), metav1.DeleteOptions{PropagationPolicy: &fg}) })
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s in cluster %s: delete for replacement: %w", ref, d.Cluster, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, e.timeoutOf(component), true, func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, d.Object.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%s in cluster %s: still there after deleting it for replacement: %w", ref, d.Cluster, err)
	}
	return nil
}

// delete deletes an object of the plan, confirming the deletion first where Gardener asks for it.
func (e *Executor) delete(ctx context.Context, o *plan.ObjectChange) error {
	ri, err := e.resourceInterface(o)
	if err != nil {
		return err
	}
	rv := o.ResourceVersion
	if r, _ := kinds.Lookup(o.Ref.GroupKind()); r.ConfirmDeletion {
		// The confirmation carries the plan's resourceVersion as its own precondition; the
		// delete then expects the version the confirmation produced.
		patched, err := e.patchAnnotations(ctx, ri, o.Ref.Name, rv, map[string]any{kinds.DeletionConfirmation: "true"})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s in cluster %s: confirm deletion: %w", o.Ref, o.Cluster, err)
		}
		rv = patched.GetResourceVersion()
	}
	bg := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &bg}
	if rv != "" {
		// Delete exactly what the plan saw; a changed object is reported, not deleted.
		opts.Preconditions = &metav1.Preconditions{ResourceVersion: &rv}
	}
	err = e.retry(ctx, func() error { return ri.Delete(ctx, o.Ref.Name, opts) })
	if apierrors.IsConflict(err) && opts.Preconditions != nil {
		// A controller writing the object's status (an autoscaler's, a Deployment's) moves its
		// resourceVersion without changing what the plan decided on: the same object (UID) at
		// the same generation is deleted at its new version.
		if current, ok := e.sameSpec(ctx, ri, o); ok {
			rv := current.GetResourceVersion()
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: &rv}
			err = e.retry(ctx, func() error { return ri.Delete(ctx, o.Ref.Name, opts) })
		}
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s in cluster %s: delete: %w", o.Ref, o.Cluster, err)
	}
	if e.Finalize != nil && kinds.ReportFinalizer(o.Ref.GroupKind()) != "" {
		if err := e.Finalize(ctx, o, o.APIVersion); err != nil {
			return fmt.Errorf("%s in cluster %s: finish its deletion: %w", o.Ref, o.Cluster, err)
		}
	}
	return nil
}

// sameSpec reads the object again and reports whether it is the one the plan saw with the same
// generation, which the API server raises on every change but of the status. Kinds that keep no
// generation never count as the same.
func (e *Executor) sameSpec(ctx context.Context, ri dynamic.ResourceInterface, o *plan.ObjectChange) (*unstructured.Unstructured, bool) {
	if e.Live == nil {
		return nil, false
	}
	seen := e.Live(o.Cluster, o.Ref)
	if seen == nil || seen.GetGeneration() == 0 {
		return nil, false
	}
	current, err := ri.Get(ctx, o.Ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, false
	}
	same := current.GetUID() == seen.GetUID() && current.GetGeneration() == seen.GetGeneration() &&
		// Labels and annotations change no generation: the object must still be the landscape's
		// as the plan saw it (inventory label, component and config-hash annotations).
		maps.Equal(current.GetLabels(), seen.GetLabels()) && maps.Equal(current.GetAnnotations(), seen.GetAnnotations())
	return current, same
}

// resourceInterface is the dynamic client of a planned object's resource, in the version the
// plan saw it in.
func (e *Executor) resourceInterface(o *plan.ObjectChange) (dynamic.ResourceInterface, error) {
	client, err := e.client(o.Cluster)
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Ref, err)
	}
	gvr, err := e.resourceOf(o, gv)
	if err != nil {
		return nil, err
	}
	return client.Resource(gvr).Namespace(o.Ref.Namespace), nil
}

// Resources maps the kinds of objects to delete to their resources (from the plan's observation).
type Resources func(cluster string, gk schema.GroupKind) (schema.GroupVersionResource, bool)

func (e *Executor) resourceOf(o *plan.ObjectChange, gv schema.GroupVersion) (schema.GroupVersionResource, error) {
	if e.resources != nil {
		if gvr, ok := e.resources(o.Cluster, o.Ref.GroupKind()); ok {
			gvr.Version = gv.Version
			return gvr, nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("%s in cluster %s: no resource known for kind %s", o.Ref, o.Cluster, object.GroupKindString(o.Ref.GroupKind()))
}

func (e *Executor) client(cluster string) (dynamic.Interface, error) {
	c, ok := e.Clients[cluster]
	if !ok {
		return nil, fmt.Errorf("no client for cluster %s", cluster)
	}
	return c, nil
}

// timeoutOf is a component's readiness timeout: its own, --timeout, or five minutes.
func (e *Executor) timeoutOf(addr string) time.Duration {
	if t := e.Timeouts[addr]; t > 0 {
		return t
	}
	if e.Timeout > 0 {
		return e.Timeout
	}
	return 5 * time.Minute
}

// waitReady waits until objs are ready. Readiness gets each object as its write answered where
// this apply wrote it (applied), and as desired otherwise.
func (e *Executor) waitReady(parent context.Context, timeout time.Duration, objs []*plan.Desired, applied map[desiredKey]*unstructured.Unstructured) error {
	if len(objs) == 0 {
		return nil
	}
	ctx := parent
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	byCluster := map[string][]*unstructured.Unstructured{}
	resources := map[string]map[object.Ref]schema.GroupVersionResource{}
	for _, d := range objs {
		obj := d.Object
		if live := applied[desiredKey{d.Cluster, object.RefOf(d.Object)}]; live != nil {
			obj = live
		}
		byCluster[d.Cluster] = append(byCluster[d.Cluster], obj)
		if resources[d.Cluster] == nil {
			resources[d.Cluster] = map[object.Ref]schema.GroupVersionResource{}
		}
		gvr := d.Resource.GVR()
		gvr.Version = d.Object.GroupVersionKind().Version
		resources[d.Cluster][object.RefOf(d.Object)] = gvr
	}
	for _, name := range slices.Sorted(maps.Keys(byCluster)) {
		if err := e.Ready(ctx, name, byCluster[name], resources[name]); err != nil {
			if parent.Err() != nil {
				return errInterrupted
			}
			return fmt.Errorf("not ready after %s: %w", timeout, err)
		}
	}
	return nil
}

// retry runs fn until it succeeds, fails with an error that is not transient, or transient
// errors have lasted longer than the retry budget; the last error is returned, saying how long
// it was retried.
func (e *Executor) retry(ctx context.Context, fn func() error) error {
	budget := e.RetryFor
	if budget <= 0 {
		budget = DefaultRetryFor
	}
	start := time.Now()
	delay := retryFirst
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !Transient(err) {
			return err
		}
		wait := delay + time.Duration(rand.Int64N(int64(delay/10)+1))
		if time.Since(start)+wait > budget {
			return fmt.Errorf("gave up after %d attempts over %s: %w", attempt, time.Since(start).Round(time.Second), err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		delay = min(delay*3/2, retryCap)
	}
}

// Transient reports errors worth retrying: throttling, server errors, timeouts, and a server
// that cannot be reached (restarting).
func Transient(err error) bool {
	switch {
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err):
		return true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "connection reset", "EOF", "i/o timeout", "TLS handshake timeout", "http2: client connection lost", "no route to host"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// waitGone waits until deleted objects no longer exist (finalizers done), within timeout.
func (e *Executor) waitGone(ctx context.Context, deleted []plan.ObjectChange, timeout time.Duration) error {
	for _, o := range deleted {
		ri, err := e.resourceInterface(&o)
		if err != nil {
			return err
		}
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			_, err := ri.Get(ctx, o.Ref.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return errInterrupted
			}
			return fmt.Errorf("%s in cluster %s: still there %s after it was deleted (finalizers?)", o.Ref, o.Cluster, timeout)
		}
	}
	return nil
}
