package plan

import (
	"context"
	"fmt"
	"github.com/declarative-gardener/gardener/engine/address"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

// compareObjects plans every desired object of a cluster against what the observation found:
// in parallel, since diffs are mostly CPU, with the reads and dry-runs some of them make
// bounded like LISTs. The changes' paths are held once in paths, and the live objects are
// indexed once for the created objects that look for what they supersede. The warnings are
// those of create-only objects that are not created again.
func compareObjects(ctx context.Context, opts Options, name string, desired []*Desired, obs *observe.Observed, red *render.Redactor, paths *heldPaths) ([]change, []string, error) {
	var differ Differ
	if len(desired) > 0 {
		var err error
		if differ, err = opts.Differs(name); err != nil {
			return nil, nil, fmt.Errorf("cluster %s: %w", name, err)
		}
	}
	liveObjects := newLiveIndex(obs)
	out := make([]change, len(desired))
	errs := make([]error, len(desired))
	notes := make([]string, len(desired))
	var wg sync.WaitGroup
	sem := make(chan struct{}, opts.Parallelism)
	for i, d := range desired {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ch, note, err := planCreateOnly(opts, name, d, obs)
			if err == nil && ch == nil {
				ch, err = planObject(ctx, opts, name, d, obs, liveObjects, differ, red)
			}
			if ch != nil {
				ch.Changes = paths.hold(ch.Changes)
			}
			out[i], notes[i], errs[i] = change{ObjectChange: ch, component: string(d.Component)}, note, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	var warnings []string
	for _, note := range notes {
		if note != "" {
			warnings = append(warnings, note)
		}
	}
	return out, warnings, nil
}

// planObject plans one desired object against its live state.
func planObject(ctx context.Context, opts Options, cluster string, d *Desired, obs *observe.Observed, index *liveIndex, differ Differ, red *render.Redactor) (*ObjectChange, error) {
	ref := object.RefOf(d.Object)
	ch := &ObjectChange{Cluster: cluster, APIVersion: d.Object.GetAPIVersion(), Ref: ref}
	ch.showAs(d.Shown())
	m := newMarks(d, red)
	live := obs.Objects[ref]
	if live == nil {
		ch.Action, ch.Reason = Create, Reason{Kind: ReasonMissing}
		fields, err := differ.Fields(ctx, d.Object)
		if err != nil {
			// No schema yet (a kind whose CRD this plan creates): untyped paths.
			ch.Changes = withoutLineage(m.changes(creation(d.Object, red)))
			return ch, nil
		}
		ch.Changes = withoutLineage(m.changes(managedContents(fieldChanges(fields, red), d.Object, predecessor(d, obs, index), red)))
		return ch, nil
	}
	if want := d.Object.GroupVersionKind(); live.GroupVersionKind() != want {
		// The LIST read the kind in the server's preferred version; diffing needs the live
		// object in the version the landscape writes, which only this object's GET gives.
		gvr := d.Resource.GVR()
		gvr.Version = want.Version
		converted, err := opts.Clusters[cluster].Get(ctx, gvr, ref.Namespace, ref.Name)
		if err != nil {
			return nil, fmt.Errorf("%s in cluster %s: read in %s: %w", d.Shown(), cluster, want.GroupVersion(), d.RedactError(err))
		}
		if converted == nil {
			// Deleted since the LIST: it will be created.
			ch.Action, ch.Reason = Create, Reason{Kind: ReasonMissing}
			ch.Changes = withoutLineage(m.changes(creation(d.Object, red)))
			return ch, nil
		}
		live = converted
	}
	ch.ResourceVersion = live.GetResourceVersion()
	imp := importing(opts, cluster, ref, d, live)
	if imp == nil {
		if err := checkLineage(opts, cluster, d.Shown(), d, live); err != nil {
			return nil, err
		}
	}
	r, err := differ.Diff(d.Object, live, false)
	if err != nil {
		return nil, fmt.Errorf("%s in cluster %s: %w", d.Shown(), cluster, d.RedactError(err))
	}
	changes := r.Changes
	// Objects with values known only after apply are not sent: the server would validate the
	// placeholder, not the value.
	if opts.DryRun != nil && len(changes) > 0 && len(r.Immutable) == 0 && !render.Unknown(d.Object.Object) {
		gvr := d.Resource.GVR()
		gvr.Version = d.Object.GroupVersionKind().Version
		if changes, err = opts.DryRun(ctx, cluster, gvr, d.Object, live); err != nil {
			return nil, fmt.Errorf("%s in cluster %s: server dry-run: %w", d.Shown(), cluster, d.RedactError(err))
		}
	}
	owner := live.GetLabels()[inventory.LandscapeLabel]
	owned := owner == opts.Landscape
	switch {
	case owner != "" && !owned:
		return nil, fmt.Errorf("%s in cluster %s belongs to landscape %q; a landscape never takes over another's objects", d.Shown(), cluster, owner)
	}
	// A replacement of a Shoot, Seed, Garden, ... would delete a cluster: the plan fails instead
	// (for adoption too, where "delete it first" would be the wrong advice).
	if err := forbiddenReplacement(d.Component, cluster, d.Shown(), r, red, m); err != nil {
		return nil, err
	}
	switch {
	case !owned && len(r.Immutable) > 0:
		return nil, fmt.Errorf("%s in cluster %s exists outside the landscape and differs in immutable field %s; adopting it would replace it: delete it first or render it as it is", d.Shown(), cluster, m.path(r.Immutable[0]))
	}
	ch.Changes = m.changes(fieldChanges(changes, red))
	for _, c := range r.Conflicts {
		ch.Conflicts = append(ch.Conflicts, Conflict{Path: m.path(c.Path), Manager: c.Manager})
	}
	// People's changes of an object the landscape owns are drift, taken back without force; an
	// object it adopts is not its own yet, and one controller's field keeps the whole object a
	// conflict.
	adopting := !owned || gainsLineage(d, live) && !recorded(opts, cluster, ref)
	if !opts.StrictConflicts && !adopting && allPeople(ch.Conflicts) {
		ch.Drift, ch.Conflicts = ch.Conflicts, nil
	}
	switch {
	case len(r.Immutable) > 0:
		ch.Action, ch.Reason = Replace, Reason{Kind: ReasonImmutableField, Detail: m.path(r.Immutable[0])}
	case imp != nil:
		// The import block is the operator's word: the fields others own are taken over.
		ch.Action, ch.Reason, ch.Conflicts = Update, Reason{Kind: ReasonImport, Detail: imp.ID}, nil
		d.Import = imp.ID
	case !owned:
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonAdopt}
	case len(ch.Changes) == 0:
		ch.Action = NoOp
	case len(ch.Conflicts) > 0:
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonConflict, Detail: firstController(ch.Conflicts)}
	case movedFrom(opts, cluster, ref, d, live) != "" && onlyComponent(ch.Changes):
		// The object stays as it is; only the annotation naming its component follows the move.
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonMoved, Detail: movedFrom(opts, cluster, ref, d, live)}
	case gainsLineage(d, live) && !recorded(opts, cluster, ref):
		// The landscape's name on an object proves nothing; one the state does not record is
		// taken over like one without the label.
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonAdopt}
	case gainsLineage(d, live) && onlyLineage(ch.Changes):
		// Applied before objects carried their lineage: the first apply adds it.
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonConfigChanged}
	case inventory.AppliedHash(live) == inventory.AppliedHash(d.Object) && (len(ch.Drift) > 0 || !allSensitive(ch.Changes)):
		// The hash leaves secrets out, so when only secret values differ it cannot tell a
		// rotation in the landscape from an edit in the cluster and calls that config_changed,
		// unless people's field managers own the changed fields: then they changed them.
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonDrift}
	default:
		ch.Action, ch.Reason = Update, Reason{Kind: ReasonConfigChanged}
	}
	if ch.Action == NoOp {
		ch.Changes, ch.Drift = nil, nil
	} else {
		ch.Changes = m.changes(managedContents(ch.Changes, d.Object, live, red))
	}
	consume(ch, d, live)
	return ch, nil
}

// consume adds the removal of the live annotations the rendering carried out (Desired.Consume)
// that still have the value it read, making a no-op an update with reason operation_done.
func consume(ch *ObjectChange, d *Desired, live *unstructured.Unstructured) {
	annotations := live.GetAnnotations()
	for _, key := range slices.Sorted(maps.Keys(d.Consume)) {
		value, ok := annotations[key]
		if !ok || value != d.Consume[key] {
			continue
		}
		path := ".metadata.annotations[" + key + "]"
		if slices.ContainsFunc(ch.Changes, func(c FieldChange) bool { return c.Path == path }) {
			continue // the landscape itself changes it
		}
		// Inserted where its path sorts, the diff's own order of the others kept.
		at := slices.IndexFunc(ch.Changes, func(c FieldChange) bool { return c.Path > path })
		if at < 0 {
			at = len(ch.Changes)
		}
		ch.Changes = slices.Insert(ch.Changes, at, FieldChange{Path: path, Before: value, HasBefore: true})
		if ch.Action == NoOp {
			ch.Action, ch.Reason = Update, Reason{Kind: ReasonOperationDone}
		}
	}
}

// checkLineage refuses a desired object that exists with the landscape's label but another
// lineage, when the plan is made with the landscape's state: another landscape of the same name
// applied it, or this landscape did before its state was lost, and taking it over (its generated
// Secrets regenerated, every CA rotated) is never right without the operator's word
// (--adopt-lineage). A plan without state cannot tell, and keeps the live lineage.
func checkLineage(opts Options, cluster string, ref object.Ref, d *Desired, live *unstructured.Unstructured) error {
	have := inventory.Lineage(live)
	if live.GetLabels()[inventory.LandscapeLabel] != opts.Landscape || have == "" || have == opts.Lineage {
		return nil // another landscape's label is refused with the ownership rules
	}
	if !opts.WithState {
		inventory.SetLineage(d.Object, have)
		return nil
	}
	ours := "this landscape's lineage is " + opts.Lineage
	if opts.Lineage == "" {
		ours = "this landscape has no state yet"
	}
	return fmt.Errorf("%s in cluster %s carries the label %s but lineage %s, and %s: another landscape of the same name applied it, or this landscape's state was lost; a landscape never takes over another's objects (if its state was lost, continue its lineage with --adopt-lineage %s)",
		ref, cluster, inventory.Selector(opts.Landscape), have, ours, have)
}

// gainsLineage reports whether applying the desired object labels the live one with the
// landscape's lineage for the first time.
func gainsLineage(d *Desired, live *unstructured.Unstructured) bool {
	return inventory.Lineage(live) == "" && inventory.Lineage(d.Object) != ""
}

// recorded reports whether the state records an object (Options.Tracked), false without a state.
func recorded(opts Options, cluster string, ref object.Ref) bool {
	return opts.Tracked != nil && opts.Tracked(cluster, ref)
}

// lineagePath is the path of the lineage label (inventory.LineageLabel).
var lineagePath = fmt.Sprintf(".metadata.labels[%s]", inventory.LineageLabel)

// importing is the import block that adopts live as d, nil when none does or the object is the
// landscape's own already (its lineage, recorded in the state: the import was applied).
func importing(opts Options, cluster string, ref object.Ref, d *Desired, live *unstructured.Unstructured) *Import {
	for i := range opts.Imports {
		imp := &opts.Imports[i]
		if imp.Cluster != cluster || imp.Ref != ref {
			continue
		}
		comp, err := address.Parse(string(d.Component))
		if err != nil || !imp.To.Matches(comp) {
			return nil
		}
		if opts.Lineage != "" && inventory.Lineage(live) == opts.Lineage && recorded(opts, cluster, ref) && live.GetLabels()[inventory.LandscapeLabel] == opts.Landscape {
			return nil
		}
		return imp
	}
	return nil
}

// componentPath is the path of the component annotation (inventory.ComponentAnnotation).
var componentPath = fmt.Sprintf(".metadata.annotations[%s]", inventory.ComponentAnnotation)

// onlyComponent reports whether the component annotation is all that changes.
func onlyComponent(changes []FieldChange) bool {
	return len(changes) == 1 && changes[0].Path == componentPath
}

// movedFrom is the address live's component annotation names when its component moved to the
// desired object's since it was applied: a moved block moved it, or the state records the object
// under the desired object's component already (`gardener state mv`); empty otherwise.
func movedFrom(opts Options, cluster string, ref object.Ref, d *Desired, live *unstructured.Unstructured) string {
	was := inventory.Component(live)
	if was == "" || was == string(d.Component) {
		return ""
	}
	for _, m := range opts.Moved {
		if m.From == was && m.To == string(d.Component) {
			return was
		}
	}
	if opts.Recorded != nil {
		if rec, ok := opts.Recorded(cluster)[ref]; ok && rec.Component == string(d.Component) {
			return was
		}
	}
	return ""
}

// onlyLineage reports whether the lineage label is all that changes.
func onlyLineage(changes []FieldChange) bool {
	return len(changes) == 1 && changes[0].Path == lineagePath
}

// withoutLineage leaves the lineage label out of a created object's fields: like the
// configuration hash it is bookkeeping, the state's random UUID, and listing it would make every
// plan that creates objects differ between two landscapes, and golden plans between two runs.
func withoutLineage(changes []FieldChange) []FieldChange {
	return slices.DeleteFunc(changes, func(c FieldChange) bool { return c.Path == lineagePath })
}

func allSensitive(changes []FieldChange) bool {
	for _, c := range changes {
		if !c.Sensitive {
			return false
		}
	}
	return true
}
