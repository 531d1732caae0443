package plan

import (
	"context"
	"fmt"
	"github.com/declarative-gardener/gardener/engine/address"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// Differ computes the server-side apply diff of one object locally (engine/diff).
type Differ interface {
	Diff(desired, live *unstructured.Unstructured, force bool) (*diff.Result, error)
	// Fields lists the fields of an object to be created, with the paths Diff uses.
	Fields(ctx context.Context, obj *unstructured.Unstructured) ([]diff.Change, error)
}

// DryRun asks a cluster what it would store for an object (a server-side apply with
// dryRun=All) and returns the changes against the live object.
// gvr is the resource in the version desired is written in.
type DryRun func(ctx context.Context, cluster string, gvr schema.GroupVersionResource, desired, live *unstructured.Unstructured) ([]diff.Change, error)

// Options are the inputs of Build.
type Options struct {
	// Landscape is the landscape's name, the value of the inventory label.
	Landscape string
	// Order is the component instances to plan, in graph order.
	Order []config.InstanceAddress
	// DependsOn lists each instance's direct dependencies.
	DependsOn map[config.InstanceAddress][]config.InstanceAddress
	// Rendered holds the rendering of every instance in Order.
	Rendered map[config.InstanceAddress]*rendering.Rendered
	// Clusters are the clusters to read, by cluster block name; every declared cluster should be
	// here, so that objects of removed components are found wherever they are.
	Clusters map[string]observe.Cluster
	// Differs returns the differ of a cluster.
	Differs func(cluster string) (Differ, error)
	// PreviousKinds are, per cluster, kinds the landscape applied objects of before (from
	// state); they are listed even when nothing renders them any more, so their objects can be
	// pruned.
	PreviousKinds map[string][]schema.GroupKind
	// Prefetched are, per cluster, LISTs started before rendering finished (observe.StartPrefetch).
	Prefetched map[string]*observe.Prefetch
	// Tracked, when set, says whether the state records an object; only recorded objects are
	// deleted (state rm forgets objects without deleting them). Without it (the state records
	// nothing) no object is deleted unless PruneWithoutState says so.
	Tracked func(cluster string, ref object.Ref) bool
	// Lineage is the landscape's lineage, its state's (inventory.LineageLabel): desired objects
	// carry it, and pruning deletes only objects of it (objects without one only where the state
	// records them under their UID: applied before objects carried their lineage). Empty while the
	// landscape has no state: the apply that writes its first state labels what it writes with the
	// lineage that write gives it.
	Lineage string
	// WithState is set when the plan is made with the landscape's state, if only an empty one (the
	// CLI's plans and applies, the daemon): a desired object that exists with the landscape's
	// label but another lineage belongs to another landscape of the same name, or to this one
	// before its state was lost, and the plan fails rather than take it over. A plan without
	// state (offline from a snapshot, a library caller that passes none) cannot check lineages and
	// keeps the one a live object carries.
	WithState bool
	// PruneWithoutState lets a plan whose state records nothing (no Tracked) delete objects with
	// the landscape's label and annotations, and then only those of its Lineage, or without a
	// lineage when it has none (--prune-without-state). Without it such a plan deletes nothing.
	PruneWithoutState bool
	// Recorded, when set, lists the objects the state records in a cluster, each with the
	// component that applied it. Pruning forgets, as released, those that left the landscape's
	// inventory (their new owner removed the label, or deleted them) and that a Gardener
	// controller owns now by their component's word (render.Output.HandedOver,
	// render.Lifetime.EndedBy); the state would otherwise record them for ever.
	Recorded func(cluster string) map[object.Ref]RecordedObject
	// Created, when set, says whether the state records an object as applied (with the UID the
	// cluster gave it), not merely as pending: a create-only object (render.CreateOnlyAnnotation)
	// that is gone is created again only if an interrupted apply never wrote it. Without it,
	// Tracked decides.
	Created func(cluster string, ref object.Ref) bool
	// Now is the time of the plan, which maintenance windows are judged against; zero means
	// the current time.
	Now time.Time
	// PreviousDependsOn are, from state, the dependencies components had when they were last
	// applied; components removed from the landscape are deleted before the removed components
	// they depended on.
	PreviousDependsOn map[string][]string
	// PreventDestroy holds the instances with lifecycle { prevent_destroy = true }.
	PreventDestroy map[string]bool
	// Destroy plans the deletion of everything the landscape owns.
	Destroy bool
	// Targets are the --target addresses as given, for the plan's record.
	Targets []string
	// TargetAddrs are the instances the targets resolved to (Order is already limited to them
	// and their dependencies, or dependents for destroy); deletions are planned only for objects
	// of the instances in Order.
	TargetAddrs []config.InstanceAddress
	// ByName reads the planned instances' objects by name instead of listing their kinds
	// (observe.Request.ByName): a targeted plan that left most of a large landscape out
	// (config.Scope) reads what its instances need, not every object of their kinds.
	ByName bool
	// RecordedOf lists, per cluster, what the state records of the instances in Order (applied
	// and pending), for ByName: what prune must see of them.
	RecordedOf func(cluster string) []object.Ref
	// AlsoPrune are components the state records that the landscape no longer declares, whose
	// objects a plan limited to TargetAddrs deletes too: those a daemon shard's own state
	// records (planner.Exclusive).
	AlsoPrune []string
	// Parallelism bounds concurrent API requests per cluster (default 10).
	Parallelism int
	// DryRun, when set, checks every object whose local diff is not empty with a real dry-run.
	DryRun DryRun
	// Outputs are the landscape's outputs.
	Outputs map[string]OutputValue
	// StrictConflicts keeps people's changes of the landscape's objects conflicts, as those of
	// controllers are (--strict-conflicts, or the landscape's strict_conflicts): apply takes
	// them back only with --force-conflicts. Without it they are drift (drift.go).
	StrictConflicts bool
	// Moved are the moves of the state's records to new addresses (moved blocks), already made
	// in the state the other options come from; live objects still name the old address in
	// their component annotation until apply writes them.
	Moved []Move
	// Imports are the landscape's import blocks: an existing object they name, rendered by the
	// instance they import it into, is adopted even where the landscape would refuse it (another
	// lineage) and with the fields other field managers own (reason import).
	Imports []Import
}

// Import is an import block as the plan needs it.
type Import struct {
	// ID is the block's id, Cluster and Ref the object it names.
	ID      string
	Cluster string
	Ref     object.Ref
	// To is the instance (or block) the object is imported into: the object must be rendered by
	// it or one of its parts.
	To address.Address
}

// RecordedObject is what the state records of an object: the component that applied it, the API
// version it was applied in and the UID the cluster gave it.
type RecordedObject struct {
	Component, APIVersion, UID string
}

// OutputValue is a landscape output as evaluation left it.
type OutputValue struct {
	Value     any
	Known     bool
	Sensitive bool
}

// protects reports whether deleting or replacing ref, an object of component, needs
// --allow-destroy: a stateful class (kinds.Protected) or a component with prevent_destroy.
func (o *Options) protects(ref object.Ref, component string) bool {
	return kinds.Protected(ref) || o.PreventDestroy[component]
}

// Result is a plan with the objects it was computed from, which apply needs.
type Result struct {
	Plan    *Plan
	Desired []*Desired
	// Observed are the live objects the plan read, by cluster.
	Observed map[string]*observe.Observed
	// Redactor hides the landscape's secrets; views and logs of this plan must use it.
	Redactor *render.Redactor
	// lineage is the lineage the desired objects were stamped with (Options.Lineage).
	lineage string
	// paths holds the field paths of the plan's changes once (heldPaths).
	paths *heldPaths
}

// Build computes the plan: the plan's components from the renderings (desired.go), then per
// cluster the observation of what lives there (observation.go), each desired object compared
// with it (compare.go) and the deletion of what the landscape no longer wants (pruning.go);
// components removed from the landscape come last, in their deletion order.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if err := inventory.ValidateLandscapeName(opts.Landscape); err != nil {
		return nil, err
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = 10
	}
	res := &Result{
		Plan:     &Plan{FormatVersion: FormatVersion, Landscape: opts.Landscape, Destroy: opts.Destroy, Targets: opts.Targets, ServerDryRun: opts.DryRun != nil},
		Observed: map[string]*observe.Observed{},
		Redactor: render.NewRedactor(nil),
		lineage:  opts.Lineage,
		paths:    newHeldPaths(),
	}
	if opts.Lineage != "" {
		if err := inventory.ValidateLineage(opts.Lineage); err != nil {
			return nil, err
		}
	}
	components := addComponents(opts, res)
	res.Plan.Moved = append([]Move(nil), opts.Moved...)
	slices.SortFunc(res.Plan.Moved, func(a, b Move) int { return strings.Compare(a.From, b.From) })
	for _, m := range opts.Moved {
		if c := components[m.To]; c != nil {
			c.MovedFrom = m.From
		}
	}
	byCluster, renderedKinds, err := desiredObjects(opts)
	if err != nil {
		return nil, err
	}
	changes := map[string][]*ObjectChange{}
	for _, name := range slices.Sorted(maps.Keys(opts.Clusters)) {
		cp, err := planCluster(ctx, opts, name, byCluster[name], renderedKinds[name], res)
		if err != nil {
			return nil, err
		}
		for _, ch := range cp {
			changes[ch.component] = append(changes[ch.component], ch.ObjectChange)
		}
	}

	var removed []string
	for addr, objs := range changes {
		c := components[addr]
		if c == nil {
			c = removedComponent(addr, opts.Rendered)
			components[addr] = c
			removed = append(removed, addr)
		}
		c.Objects = append(c.Objects, objs...)
	}
	// Removed components are deleted after everything else is applied, one at a time in the
	// order listed here: dependents before what they were applied after (their edges come from
	// the state, their blocks being gone), else in reverse address order. Apply deletes each
	// component's objects in reverse kind order.
	for _, addr := range deletionOrder(removed, opts.PreviousDependsOn) {
		res.Plan.Components = append(res.Plan.Components, components[addr])
	}
	for _, c := range res.Plan.Components {
		sortObjects(c.Objects)
		for _, o := range c.Objects {
			if (o.Action == Delete || o.Action == Replace) && opts.protects(o.Ref, c.Address) {
				res.Plan.Warnings = append(res.Plan.Warnings, fmt.Sprintf("%s in cluster %s is protected: apply will %s it only with --allow-destroy %s", o.Shown(), o.Cluster, o.Action, c.Address))
			}
		}
	}
	if !opts.Destroy {
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		rendered := func(addr string) *rendering.Rendered { return opts.Rendered[config.InstanceAddress(addr)] }
		if err := holdOutsideWindows(res.Plan.Components, rendered, now); err != nil {
			return nil, err
		}
	}
	res.Plan.IndirectDeletions = indirectDeletions(res.Plan.Components, res.Desired, res.Observed, res.Redactor)
	res.Plan.Outputs = outputs(opts.Outputs, res.Redactor)
	res.redactTexts()
	res.Plan.Summarise()
	return res, nil
}

// redactTexts removes the landscape's secrets, and the names it hides, from the plan's texts:
// warnings and notices that name objects, reasons that name another object or a field, notes,
// predictions and retirements.
func (r *Result) redactTexts() {
	red := r.Redactor
	for i, w := range r.Plan.Warnings {
		r.Plan.Warnings[i] = red.Redact(w)
	}
	for i, n := range r.Plan.Notices {
		r.Plan.Notices[i] = red.Redact(n)
	}
	for i, p := range r.Plan.Predictions {
		p.Description = red.Redact(p.Description)
		p.Ref.Name, p.Ref.Namespace = red.Redact(p.Ref.Name), red.Redact(p.Ref.Namespace)
		r.Plan.Predictions[i] = p
	}
	for i, rt := range r.Plan.Retired {
		r.Plan.Retired[i].Reason = red.Redact(rt.Reason)
	}
	for i, d := range r.Plan.IndirectDeletions {
		r.Plan.IndirectDeletions[i].Deletes = red.Redact(d.Deletes)
	}
	for _, c := range r.Plan.Components {
		c.Note.Text = red.Redact(c.Note.Text)
		for _, o := range c.Objects {
			o.Reason.Detail = red.Redact(o.Reason.Detail)
			for i, cf := range o.Conflicts {
				o.Conflicts[i].Path = red.Redact(cf.Path)
			}
			for i, cf := range o.Drift {
				o.Drift[i].Path = red.Redact(cf.Path)
			}
		}
	}
}

// change is an object change with the component it belongs to.
type change struct {
	*ObjectChange
	component string
}

// planCluster observes one cluster, compares its desired objects with what lives there and
// plans the deletion of what the landscape no longer wants.
func planCluster(ctx context.Context, opts Options, name string, desired []*Desired, renderedKinds []schema.GroupKind, res *Result) ([]change, error) {
	pending := pendingKinds(desired)
	served, err := servedKinds(ctx, opts.Clusters[name], desired, pending)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	wanted, err := resolveDesired(opts, name, desired, served, pending, res)
	if err != nil {
		return nil, err
	}
	obs, err := observeCluster(ctx, opts, name, wanted, renderedKinds, served, pending)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	res.Observed[name] = obs
	out, warnings, err := compareObjects(ctx, opts, name, desired, obs, res.Redactor, res.paths)
	if err != nil {
		return nil, err
	}
	var recorded map[object.Ref]RecordedObject
	if opts.Recorded != nil {
		recorded = opts.Recorded(name)
	}
	p := newPruning(opts, name, wanted, recorded)
	deletions, kept := p.prune(obs)
	if opts.Recorded != nil {
		deletions = append(deletions, p.forget(recorded, obs)...)
	}
	for _, d := range deletions {
		// An object the landscape no longer renders whose name a sensitive value made.
		shown := hiddenIdentity(d.Ref, obs.Objects[d.Ref])
		d.showAs(shown)
		hideName(res.Redactor, d.Ref, shown)
	}
	res.Plan.Warnings = append(append(res.Plan.Warnings, warnings...), kept...)
	return append(out, deletions...), nil
}

// sortObjects orders a component's objects by cluster, then in apply order of their kinds
// (kinds.ApplyRank), then by reference, which is the order apply writes them in.
func sortObjects(objs []*ObjectChange) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Cluster != b.Cluster {
			return a.Cluster < b.Cluster
		}
		if ra, rb := kinds.ApplyRank(a.Ref.GroupKind()), kinds.ApplyRank(b.Ref.GroupKind()); ra != rb {
			return ra < rb
		}
		return a.Ref.Less(b.Ref)
	})
}

func outputs(values map[string]OutputValue, red *render.Redactor) []Output {
	var out []Output
	for _, n := range slices.Sorted(maps.Keys(values)) {
		v := values[n]
		o := Output{Name: n, Sensitive: v.Sensitive || red.Sensitive(v.Value), Unknown: !v.Known}
		if !o.Sensitive && !o.Unknown {
			o.Value = v.Value
		}
		out = append(out, o)
	}
	return out
}
