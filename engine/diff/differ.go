package diff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/declarative-gardener/gardener/engine/openapi"
)

// Differ computes server-side-apply diffs locally for one field manager. Safe for concurrent use.
type Differ struct {
	schemas *openapi.Schemas
	manager string
	// applyID is the manager's identifier for Apply operations, as the server builds it.
	applyID string
	// slowOnly disables the no-op fast path; tests use it to prove both paths agree.
	slowOnly bool
}

// New returns a differ applying as manager (the engine uses "gardener") with the given schemas.
func New(schemas *openapi.Schemas, manager string) *Differ {
	id, err := managerID(metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply})
	if err != nil {
		panic(err) // marshalling a fixed struct of strings cannot fail
	}
	return &Differ{schemas: schemas, manager: manager, applyID: id}
}

// Manager is the field manager the differ applies as.
func (d *Differ) Manager() string { return d.manager }

// Diff is DiffContext without a deadline on schema loading.
func (d *Differ) Diff(desired, live *unstructured.Unstructured, force bool) (*Result, error) {
	return d.DiffContext(context.Background(), desired, live, force)
}

// DiffContext computes what server-side applying desired over live (nil: the object does not
// exist) would change. With force false, fields another manager owns with a different value are
// returned as Conflicts and Changes show what a forced apply would do. ctx bounds loading the
// kind's schema. Neither object is modified; Result.Merged may share nested values with live and
// must be treated as read-only.
func (d *Differ) DiffContext(ctx context.Context, desired, live *unstructured.Unstructured, force bool) (*Result, error) {
	if live == nil {
		return &Result{Action: Create}, nil
	}
	gvk := desired.GroupVersionKind()
	if lgvk := live.GroupVersionKind(); lgvk != gvk {
		return nil, fmt.Errorf("diff %s: live object is %s; diff needs both in one version", gvk, lgvk)
	}
	t, err := d.schemas.Type(ctx, gvk)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", gvk, err)
	}
	cfg := applyConfig(desired.Object)
	entries, err := managedEntries(live.Object)
	if err != nil {
		return nil, fmt.Errorf("diff %s %s: %w", gvk.Kind, desired.GetName(), err)
	}
	version := fieldpath.APIVersion(gvk.GroupVersion().String())
	if !d.slowOnly && d.unchanged(t, cfg, live.Object, entries, version) {
		return &Result{Action: NoOp, Merged: live}, nil
	}
	patch, err := t.Parseable().FromUnstructured(cfg)
	if err != nil {
		return nil, fmt.Errorf("diff %s %s: %w", gvk.Kind, desired.GetName(), err)
	}
	res, err := d.apply(t, patch, live, entries, version, force)
	if err != nil {
		return nil, fmt.Errorf("diff %s %s: %w", gvk.Kind, desired.GetName(), err)
	}
	return res, nil
}

// applyConfig is the desired object as the server's field manager sees an apply request: status
// is reset by the main resource's update strategy and managedFields may not be sent, so neither
// takes part. The input is not modified.
func applyConfig(obj map[string]any) map[string]any {
	md, hasMD := obj["metadata"].(map[string]any)
	_, hasMF := md["managedFields"]
	_, hasStatus := obj["status"]
	if !hasStatus && !hasMF {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	delete(out, "status")
	if hasMD && hasMF {
		out["metadata"] = without(md, "managedFields")
	}
	return out
}

// liveForApply strips what the merge does not need from the live object: managedFields (decoded
// separately) and status (never applied through the main resource).
func liveForApply(obj map[string]any) map[string]any {
	out := without(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		out["metadata"] = without(md, "managedFields")
	}
	return out
}

// without returns a shallow copy of m without the given keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// stripSet holds the fields the server never records as managed (its stripMeta step).
var stripSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// resetSet holds the fields the main resource's update resets (status), which the server
// therefore never records for an applier.
var resetSet = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))

// beforeFirstApply is the manager the server assigns every existing field to when an object
// without managedFields is applied to for the first time.
const beforeFirstApply = "before-first-apply"

// versionConverter presents an object in another API version for managers that recorded their
// fields in one. Without the server's conversion functions it keeps the fields as they are, which
// is exact for custom resources without a conversion webhook and for versions that share their
// fields.
type versionConverter struct{}

func (versionConverter) Convert(obj *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return obj, nil
}

func (versionConverter) IsMissingVersionError(error) bool { return false }

// apply runs the server's field manager locally and compares the result with live.
func (d *Differ) apply(t *openapi.Type, patch *typed.TypedValue, live *unstructured.Unstructured, entries []managedEntry, version fieldpath.APIVersion, force bool) (*Result, error) {
	gvk := t.GroupVersionKind()
	liveObj := liveForApply(live.Object)
	liveTV, err := t.Parseable().FromUnstructured(liveObj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("live object: %w", err)
	}
	before, err := decodeManaged(entries)
	if err != nil {
		return nil, err
	}
	updater := (&merge.UpdaterBuilder{
		Converter:    versionConverter{},
		IgnoreFilter: map[fieldpath.APIVersion]fieldpath.Filter{version: fieldpath.NewExcludeSetFilter(resetSet)},
	}).BuildUpdater()

	if len(before.fields) == 0 {
		// The server's skip-non-applied step: existing fields belong to before-first-apply.
		if err := d.adoptExisting(t, updater, liveTV, version, &before); err != nil {
			return nil, err
		}
	}

	res := &Result{}
	merged, after, err := updater.Apply(liveTV, patch, version, before.fields.Copy(), d.applyID, force)
	var conflicts merge.Conflicts
	if errors.As(err, &conflicts) && !force {
		res.Conflicts = d.conflicts(patch, conflicts)
		merged, after, err = updater.Apply(liveTV, patch, version, before.fields.Copy(), d.applyID, true)
	}
	if err != nil {
		return nil, err
	}
	stripMeta(after, d.applyID)

	mergedObj := liveObj
	if merged != nil {
		m, ok := merged.AsValue().Unstructured().(map[string]any)
		if !ok {
			return nil, fmt.Errorf("merged object is not an object")
		}
		mergedObj = m
	}
	if isSecret(gvk) {
		mergedObj = foldStringData(mergedObj)
	}

	raw := compareObjects(patch.Schema(), patch.TypeRef(), liveObj, mergedObj)
	if root, ok := goRootType(gvk); ok {
		kept := raw[:0]
		for _, ch := range raw {
			if !vanishesInGo(root, ch) {
				kept = append(kept, ch)
			}
		}
		raw = kept
	}
	res.Changes = render(gvk, raw)
	res.Immutable = d.immutable(t, patch, raw, live.Object, liveObj, mergedObj)
	res.ManagedFieldsChanged = !after.Equals(before.fields)
	res.Action = NoOp
	if len(res.Changes) > 0 {
		res.Action = Update
	}
	res.Merged, err = mergedObject(mergedObj, live.Object, managed{fields: after, meta: before.meta})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Fields lists every field an object sets, leaf by leaf, as changes from nothing, with the paths
// Diff uses (list items by their keys, map keys in brackets): what a plan shows for an object it
// creates. Server-maintained metadata and status are left out.
func (d *Differ) Fields(ctx context.Context, obj *unstructured.Unstructured) ([]Change, error) {
	gvk := obj.GroupVersionKind()
	t, err := d.schemas.Type(ctx, gvk)
	if err != nil {
		return nil, fmt.Errorf("fields of %s: %w", gvk, err)
	}
	p := t.Parseable()
	return objectFields(gvk, p.Schema, p.TypeRef, obj.Object), nil
}

// adoptExisting records every field of live as owned by before-first-apply, as the server does
// on the first apply to an object created without field management.
func (d *Differ) adoptExisting(t *openapi.Type, updater *merge.Updater, liveTV *typed.TypedValue, version fieldpath.APIVersion, m *managed) error {
	gvk := t.GroupVersionKind()
	empty, err := t.Parseable().FromUnstructured(map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind})
	if err != nil {
		return fmt.Errorf("empty object: %w", err)
	}
	meta := metav1.ManagedFieldsEntry{Manager: beforeFirstApply, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: string(version)}
	id, err := managerID(meta)
	if err != nil {
		return err
	}
	_, fields, err := updater.Update(empty, liveTV, version, m.fields, id)
	if err != nil {
		return fmt.Errorf("adopt existing fields: %w", err)
	}
	stripMeta(fields, id)
	m.fields = fields
	m.meta[id] = meta
	return nil
}

// stripMeta removes the fields the server never records from one manager's set.
func stripMeta(fields fieldpath.ManagedFields, id string) {
	vs, ok := fields[id]
	if !ok {
		return
	}
	set := vs.Set().Difference(stripSet)
	if set.Empty() {
		delete(fields, id)
		return
	}
	fields[id] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
}

// unchanged is the fast path of a no-op: our manager already owns exactly the fields desired
// sets and every one of them has the desired value. Then the apply changes neither the object
// nor any manager's fields, and the merge can be skipped. desired is not validated here: an
// invalid object cannot pass (live is valid and must hold every desired value).
func (d *Differ) unchanged(t *openapi.Type, cfg, live map[string]any, entries []managedEntry, version fieldpath.APIVersion) bool {
	var ours *managedEntry
	for i := range entries {
		e := &entries[i]
		if e.meta.Manager == d.manager && e.meta.Operation == metav1.ManagedFieldsOperationApply && e.meta.Subresource == "" {
			ours = e
			break
		}
	}
	if ours == nil || fieldpath.APIVersion(ours.meta.APIVersion) != version {
		return false
	}
	p := t.Parseable()
	return covers(p.Schema, p.TypeRef, live, cfg) && ownsExactly(p.Schema, p.TypeRef, ours.fields, cfg)
}

// conflicts converts structured-merge-diff conflicts, sorted and without duplicates.
func (d *Differ) conflicts(patch *typed.TypedValue, cs merge.Conflicts) []Conflict {
	out := make([]Conflict, 0, len(cs))
	for _, c := range cs {
		out = append(out, Conflict{Path: formatSMDPath(patch.Schema(), patch.TypeRef(), c.Path), Manager: managerName(c.Manager)})
	}
	return sortedConflicts(out)
}

// sortedConflicts sorts conflicts by path and manager and drops duplicates.
func sortedConflicts(cs []Conflict) []Conflict {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Path != cs[j].Path {
			return cs[i].Path < cs[j].Path
		}
		return cs[i].Manager < cs[j].Manager
	})
	return slices.Compact(cs)
}

// immutable lists the immutable fields the changes touch, from the built-in table and from the
// kind's self == oldSelf transition rules. whole is the live object with its status, which some
// conditions read (a CustomResourceDefinition's Established); live is the part that is applied.
func (d *Differ) immutable(t *openapi.Type, patch *typed.TypedValue, raw []rawChange, whole, live, merged map[string]any) []string {
	if len(raw) == 0 {
		return nil
	}
	rules := builtinRules[t.GroupVersionKind().GroupKind()]
	for _, p := range t.TransitionImmutable() {
		rules = append(rules[:len(rules):len(rules)], compiledRule{path: fromOpenAPI(p), when: bothSet})
	}
	if len(rules) == 0 {
		return nil
	}
	return immutableChanges(patch.Schema(), patch.TypeRef(), rules, raw, whole, live, merged)
}

// mergedObject assembles Result.Merged: the merged fields, live's status and the new
// managedFields.
func mergedObject(merged, live map[string]any, m managed) (*unstructured.Unstructured, error) {
	out := without(merged)
	if st, ok := live["status"]; ok {
		out["status"] = st
	}
	md, _ := merged["metadata"].(map[string]any)
	md = without(md)
	mf, err := encodeManaged(m)
	if err != nil {
		return nil, err
	}
	if len(mf) > 0 {
		md["managedFields"] = mf
	} else {
		delete(md, "managedFields")
	}
	out["metadata"] = md
	return &unstructured.Unstructured{Object: out}, nil
}

// render turns raw changes into sorted Changes.
func render(gvk schema.GroupVersionKind, raw []rawChange) []Change {
	if len(raw) == 0 {
		return nil
	}
	out := make([]Change, len(raw))
	for i, ch := range raw {
		out[i] = Change{Path: ch.path.String(), Old: ch.old, New: ch.new, Sensitive: sensitive(gvk, ch.path)}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
