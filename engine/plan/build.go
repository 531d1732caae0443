package plan

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	gschema "github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/secrets"
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
	// deleted (state rm forgets objects without deleting them). Without state, every object
	// with the landscape's label and annotations counts.
	Tracked func(cluster string, ref object.Ref) bool
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
	// Parallelism bounds concurrent API requests per cluster (default 10).
	Parallelism int
	// DryRun, when set, checks every object whose local diff is not empty with a real dry-run.
	DryRun DryRun
	// Outputs are the landscape's outputs.
	Outputs map[string]OutputValue
}

// OutputValue is a landscape output as evaluation left it.
type OutputValue struct {
	Value     any
	Known     bool
	Sensitive bool
}

// protects reports whether deleting or replacing ref, an object of component, needs
// --allow-destroy: a stateful class (object.Protected) or a component with prevent_destroy.
func (o *Options) protects(ref object.Ref, component string) bool {
	return object.Protected(ref) || o.PreventDestroy[component]
}

// Desired is a rendered object the plan wants in a cluster, stamped with its inventory label.
type Desired struct {
	Cluster   string
	Component config.InstanceAddress
	Resource  observe.Resource
	Object    *unstructured.Unstructured
	// Consume are the live object's annotations this plan carries out and apply removes
	// (render.Object.Consume).
	Consume map[string]string
	// Supersedes matches the names of the earlier versions this object replaces
	// (render.Object.Supersedes).
	Supersedes *regexp.Regexp
}

// Result is a plan with the objects it was computed from, which apply needs.
type Result struct {
	Plan    *Plan
	Desired []*Desired
	// Observed are the live objects the plan read, by cluster.
	Observed map[string]*observe.Observed
	// Redactor hides the landscape's secrets; views and logs of this plan must use it.
	Redactor *render.Redactor
}

// Build computes the plan.
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
	}
	components := map[string]*Component{}
	for _, addr := range opts.Order {
		rd := opts.Rendered[addr]
		if rd == nil {
			continue
		}
		res.Redactor.Add(rd.Secrets...)
		c := &Component{Address: string(addr), Type: rd.Type, Objects: []*ObjectChange{}}
		for _, dep := range opts.DependsOn[addr] {
			c.DependsOn = append(c.DependsOn, string(dep))
		}
		sort.Strings(c.DependsOn)
		switch {
		case rd.NoRenderer:
			c.Note = fmt.Sprintf("%s components are not rendered by this version of gardener", rd.Type)
			res.Plan.Warnings = append(res.Plan.Warnings, fmt.Sprintf("%s is not planned: %s", addr, c.Note))
		case rd.Generated != "" && !strings.HasPrefix(rd.Generated, string(secrets.Reused)):
			c.Note = rd.Generated
		case len(rd.Deferred) > 0 && !opts.Destroy:
			c.Action = Read
			c.Note = "rendered during apply: depends on values known only after apply (" + strings.Join(rd.Deferred, ", ") + ")"
		case rd.Retired != nil:
			what := "its objects are"
			if rd.Type == string(gschema.KindGarden) || rd.Type == string(gschema.KindSeed) || rd.Type == string(gschema.KindShoot) {
				what = "its parts are"
			}
			c.Note = fmt.Sprintf("lifetime ended at %s: %s deleted", rd.Retired.Ended, what)
			res.Plan.Retired = append(res.Plan.Retired, Retirement(*rd.Retired))
		case rd.Note != "":
			c.Note = rd.Note
		}
		res.Plan.Notices = append(res.Plan.Notices, rd.Notices...)
		components[string(addr)] = c
		res.Plan.Components = append(res.Plan.Components, c)
	}

	byCluster := map[string][]*Desired{}
	// The kinds the landscape renders are listed even by a destroy plan, which wants none of
	// them but must find every object of them that it owns.
	renderedKinds := map[string][]schema.GroupKind{}
	for _, addr := range opts.Order {
		rd := opts.Rendered[addr]
		if rd == nil || len(rd.Deferred) > 0 {
			continue
		}
		for _, o := range rd.Objects {
			if _, ok := opts.Clusters[o.Cluster]; !ok {
				return nil, fmt.Errorf("component %s renders %s for cluster %q, which the landscape does not declare", addr, o.Object.GetName(), o.Cluster)
			}
			if opts.Destroy {
				renderedKinds[o.Cluster] = append(renderedKinds[o.Cluster], o.Object.GroupVersionKind().GroupKind())
				continue
			}
			obj := o.Object.DeepCopy()
			if o.DefaultNamespace != "" && obj.GetNamespace() == "" {
				obj.SetNamespace(o.DefaultNamespace) // cleared below for cluster-scoped kinds
			}
			byCluster[o.Cluster] = append(byCluster[o.Cluster], &Desired{Cluster: o.Cluster, Component: addr, Object: obj, Consume: o.Consume, Supersedes: o.Supersedes})
		}
	}

	clusters := make([]string, 0, len(opts.Clusters))
	for name := range opts.Clusters {
		clusters = append(clusters, name)
	}
	sort.Strings(clusters)
	changes := map[string][]*ObjectChange{}
	for _, name := range clusters {
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
			note := NoteRemoved
			if retiredPart(opts.Rendered, addr) {
				note = NoteLifetimeEnded
			}
			c = &Component{Address: addr, Type: typeOfAddress(addr), Objects: []*ObjectChange{}, Note: note}
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
				res.Plan.Warnings = append(res.Plan.Warnings, fmt.Sprintf("%s in cluster %s is protected: apply will %s it only with --allow-destroy %s", o.Ref, o.Cluster, o.Action, c.Address))
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
	res.Plan.Outputs = outputs(opts.Outputs, res.Redactor)
	res.Plan.Summarise()
	return res, nil
}

// change is an object change with the component it belongs to.
type change struct {
	*ObjectChange
	component string
}

// planCluster observes one cluster and diffs its desired objects.
func planCluster(ctx context.Context, opts Options, name string, desired []*Desired, renderedKinds []schema.GroupKind, res *Result) ([]change, error) {
	cl := opts.Clusters[name]
	var warnings []string
	defer func() { res.Plan.Warnings = append(res.Plan.Warnings, warnings...) }()
	pending := pendingKinds(desired)
	served, err := servedKinds(ctx, cl, desired, pending)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}

	kinds := map[schema.GroupKind]bool{}
	var refs []object.Ref
	byRef := map[object.Ref]*Desired{}
	for _, d := range desired {
		gvk := d.Object.GroupVersionKind()
		gk := gvk.GroupKind()
		r, ok := served[gk]
		if !ok {
			p, isPending := pending[gk]
			if !isPending {
				return nil, fmt.Errorf("cluster %s does not serve %s (used by %s %s) and no component of the landscape defines it", name, object.GroupKindString(gk), d.Component, d.Object.GetName())
			}
			r = p
		}
		d.Resource = r
		if !r.Namespaced {
			d.Object.SetNamespace("")
		} else if d.Object.GetNamespace() == "" {
			return nil, fmt.Errorf("component %s renders %s %s without a namespace", d.Component, object.GroupKindString(gk), d.Object.GetName())
		}
		if err := res.stamp(d, opts.Landscape); err != nil {
			return nil, err
		}
		ref := object.RefOf(d.Object)
		if other, dup := byRef[ref]; dup {
			return nil, fmt.Errorf("%s in cluster %s is rendered twice, by %s and %s", ref, name, other.Component, d.Component)
		}
		byRef[ref] = d
		refs = append(refs, ref)
		kinds[gk] = true
		res.Desired = append(res.Desired, d)
	}
	// Every kind is listed across all namespaces: an object the landscape applied before may
	// be in a namespace it no longer renders into, and only a cluster-wide LIST finds it for
	// pruning. (Once state records the namespaces of earlier applies, LISTs can be scoped.)
	// Kinds of desired objects are listed whether or not discovery served them when the plan
	// started: a cached discovery document can predate a CRD, and observe refreshes it, so the
	// LISTs must not depend on how fresh the cache was (a snapshot replays them exactly).
	var listed []schema.GroupKind
	for gk := range kinds {
		listed = append(listed, gk)
	}
	for _, gk := range append(append([]schema.GroupKind(nil), opts.PreviousKinds[name]...), renderedKinds...) {
		if _, ok := served[gk]; !kinds[gk] && ok {
			kinds[gk] = true
			listed = append(listed, gk)
		}
	}
	pendingSet := map[schema.GroupKind]bool{}
	for gk := range pending {
		pendingSet[gk] = true
	}
	obs, err := observe.Observe(ctx, cl, observe.Request{
		Selector:    inventory.Selector(opts.Landscape),
		Desired:     refs,
		Kinds:       listed,
		Pending:     pendingSet,
		Parallelism: opts.Parallelism,
		Prefetched:  opts.Prefetched[name],
	})
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	res.Observed[name] = obs

	var differ Differ
	if len(desired) > 0 {
		if differ, err = opts.Differs(name); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
	}
	out := make([]change, len(desired))
	errs := make([]error, len(desired))
	notes := make([]string, len(desired))
	var wg sync.WaitGroup
	// Diffs are mostly CPU; the reads and dry-runs some of them make are bounded like LISTs.
	sem := make(chan struct{}, opts.Parallelism)
	for i, d := range desired {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ch, note, err := planCreateOnly(opts, name, d, obs)
			if err == nil && ch == nil {
				ch, err = planObject(ctx, opts, name, d, obs, differ, res.Redactor)
			}
			out[i], notes[i], errs[i] = change{ObjectChange: ch, component: string(d.Component)}, note, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, note := range notes {
		if note != "" {
			warnings = append(warnings, note)
		}
	}

	var inOrder map[string]bool
	if len(opts.TargetAddrs) > 0 {
		inOrder = map[string]bool{}
		for _, a := range opts.Order {
			inOrder[string(a)] = true
		}
	}
	// What must not be deleted although no planned component wants it: objects that instances
	// outside --target render, and namespaces and CRDs that desired objects still need.
	elsewhere := renderedOutside(opts.Rendered, inOrder, name)
	usedNamespaces := map[string]bool{}
	usedKinds := map[schema.GroupKind]bool{}
	var versioned []*Desired // objects that supersede earlier versions of themselves
	for _, d := range desired {
		usedNamespaces[d.Object.GetNamespace()] = true
		usedKinds[d.Object.GroupVersionKind().GroupKind()] = true
		if d.Supersedes != nil {
			versioned = append(versioned, d)
		}
	}
	for _, ref := range obs.Inventory {
		if _, wanted := byRef[ref]; wanted || elsewhere[ref] {
			continue
		}
		live := obs.Objects[ref]
		if live == nil {
			continue
		}
		if still := stillNeeded(ref, live, usedNamespaces, usedKinds); still != "" {
			warnings = append(warnings, fmt.Sprintf("%s in cluster %s is no longer rendered but %s; it is kept", ref, name, still))
			continue
		}
		comp := inventory.Component(live)
		if comp == "" || inventory.AppliedHash(live) == "" || metav1.GetControllerOf(live) != nil {
			// Carrying the label alone does not make an object ours: a controller may have
			// copied it from its owner, or a person added it. Only objects the engine applied
			// (both annotations, no controlling owner) are ever deleted.
			warnings = append(warnings, fmt.Sprintf("%s in cluster %s carries the label %s but was not applied by gardener; it is left alone", ref, name, inventory.Selector(opts.Landscape)))
			continue
		}
		if opts.Tracked != nil && !opts.Tracked(name, ref) {
			warnings = append(warnings, fmt.Sprintf("%s in cluster %s carries the label %s but the state does not record it; it is left alone", ref, name, inventory.Selector(opts.Landscape)))
			continue
		}
		if rd := opts.Rendered[config.InstanceAddress(comp)]; rd != nil && len(rd.Deferred) > 0 && !opts.Destroy {
			continue // what a deferred component renders is known only during apply
		}
		retired := retiredPart(opts.Rendered, comp)
		if inOrder != nil && !inOrder[comp] && !(retired && inOrder[parentAddress(comp)]) {
			continue
		}
		reason := ReasonRemovedFromLandscape
		switch {
		case opts.Destroy:
			reason = ReasonDestroy
		case retired:
			reason = ReasonLifetimeEnded
		case opts.protects(ref, comp):
			// A protected object stays a removal, which needs an approval and --allow-destroy,
			// whatever supersedes it.
		default:
			if next := successor(versioned, comp, ref); next != "" {
				reason = ReasonSuperseded + ":" + next
			}
		}
		out = append(out, change{component: comp, ObjectChange: &ObjectChange{
			Cluster: name, APIVersion: live.GetAPIVersion(), Ref: ref, Action: Delete, Reason: reason,
			ResourceVersion: live.GetResourceVersion(),
		}})
	}
	return out, nil
}

// successor names the object of component comp among versioned that supersedes the live
// object ref (render.Object.Supersedes); "" when none does.
func successor(versioned []*Desired, comp string, ref object.Ref) string {
	for _, d := range versioned {
		if string(d.Component) != comp {
			continue // only its own component's new version supersedes an object
		}
		if r := object.RefOf(d.Object); r.Group == ref.Group && r.Kind == ref.Kind && r.Namespace == ref.Namespace && d.Supersedes.MatchString(ref.Name) {
			return r.Name
		}
	}
	return ""
}

// servedKinds reads discovery. Discovery may come from a cache; when it lacks a kind the
// landscape writes and does not define itself, it is read again once before the kind is
// declared unserved (a CRD installed minutes ago must not fail the plan).
func servedKinds(ctx context.Context, cl observe.Cluster, desired []*Desired, pending map[schema.GroupKind]observe.Resource) (map[schema.GroupKind]observe.Resource, error) {
	for attempt := 0; ; attempt++ {
		resources, err := cl.Resources(ctx)
		if err != nil {
			return nil, err
		}
		served := map[schema.GroupKind]observe.Resource{}
		for _, r := range resources {
			if _, seen := served[r.GroupKind()]; !seen {
				served[r.GroupKind()] = r
			}
		}
		missing := false
		for _, d := range desired {
			gk := d.Object.GroupVersionKind().GroupKind()
			if _, ok := served[gk]; !ok {
				if _, ok := pending[gk]; !ok {
					missing = true
					break
				}
			}
		}
		refresher, canRefresh := cl.(observe.DiscoveryRefresher)
		if !missing || !canRefresh || attempt > 0 {
			return served, nil
		}
		if err := refresher.RefreshDiscovery(ctx); err != nil {
			return nil, err
		}
	}
}

// planObject plans one desired object against its live state.
func planObject(ctx context.Context, opts Options, cluster string, d *Desired, obs *observe.Observed, differ Differ, red *render.Redactor) (*ObjectChange, error) {
	ref := object.RefOf(d.Object)
	ch := &ObjectChange{Cluster: cluster, APIVersion: d.Object.GetAPIVersion(), Ref: ref}
	live := obs.Objects[ref]
	if live == nil {
		ch.Action, ch.Reason = Create, ReasonMissing
		fields, err := differ.Fields(ctx, d.Object)
		if err != nil {
			// No schema yet (a kind whose CRD this plan creates): untyped paths.
			ch.Changes = creation(d.Object, red)
			return ch, nil
		}
		ch.Changes = managedContents(fieldChanges(fields, red), d.Object, nil, red)
		return ch, nil
	}
	if want := d.Object.GroupVersionKind(); live.GroupVersionKind() != want {
		// The LIST read the kind in the server's preferred version; diffing needs the live
		// object in the version the landscape writes, which only this object's GET gives.
		gvr := d.Resource.GVR()
		gvr.Version = want.Version
		converted, err := opts.Clusters[cluster].Get(ctx, gvr, ref.Namespace, ref.Name)
		if err != nil {
			return nil, fmt.Errorf("%s in cluster %s: read in %s: %w", ref, cluster, want.GroupVersion(), err)
		}
		if converted == nil {
			// Deleted since the LIST: it will be created.
			ch.Action, ch.Reason = Create, ReasonMissing
			ch.Changes = creation(d.Object, red)
			return ch, nil
		}
		live = converted
	}
	ch.ResourceVersion = live.GetResourceVersion()
	r, err := differ.Diff(d.Object, live, false)
	if err != nil {
		return nil, fmt.Errorf("%s in cluster %s: %w", ref, cluster, err)
	}
	changes := r.Changes
	// Objects with values known only after apply are not sent: the server would validate the
	// placeholder, not the value.
	if opts.DryRun != nil && len(changes) > 0 && len(r.Immutable) == 0 && !render.Unknown(d.Object.Object) {
		gvr := d.Resource.GVR()
		gvr.Version = d.Object.GroupVersionKind().Version
		if changes, err = opts.DryRun(ctx, cluster, gvr, d.Object, live); err != nil {
			return nil, fmt.Errorf("%s in cluster %s: server dry-run: %w", ref, cluster, err)
		}
	}
	owner := live.GetLabels()[inventory.LandscapeLabel]
	owned := owner == opts.Landscape
	switch {
	case owner != "" && !owned:
		return nil, fmt.Errorf("%s in cluster %s belongs to landscape %q; a landscape never takes over another's objects", ref, cluster, owner)
	}
	// A replacement of a Shoot, Seed, Garden, ... would delete a cluster: the plan fails instead
	// (for adoption too, where "delete it first" would be the wrong advice).
	if err := forbiddenReplacement(d.Component, cluster, ref, r, red); err != nil {
		return nil, err
	}
	switch {
	case !owned && len(r.Immutable) > 0:
		return nil, fmt.Errorf("%s in cluster %s exists outside the landscape and differs in immutable field %s; adopting it would replace it: delete it first or render it as it is", ref, cluster, r.Immutable[0])
	}
	ch.Changes = fieldChanges(changes, red)
	for _, c := range r.Conflicts {
		ch.Conflicts = append(ch.Conflicts, Conflict{Path: c.Path, Manager: c.Manager})
	}
	switch {
	case len(r.Immutable) > 0:
		ch.Action, ch.Reason = Replace, ReasonImmutableField+":"+r.Immutable[0]
	case !owned:
		ch.Action, ch.Reason = Update, ReasonAdopt
	case len(ch.Changes) == 0:
		ch.Action = NoOp
	case len(r.Conflicts) > 0:
		ch.Action, ch.Reason = Update, ReasonConflict+":"+r.Conflicts[0].Manager
	case inventory.AppliedHash(live) == inventory.AppliedHash(d.Object) && !allSensitive(ch.Changes):
		// The hash leaves secrets out, so when only secret values differ it cannot tell a
		// rotation in the landscape from an edit in the cluster; it calls that config_changed.
		ch.Action, ch.Reason = Update, ReasonDrift
	default:
		ch.Action, ch.Reason = Update, ReasonConfigChanged
	}
	if ch.Action == NoOp {
		ch.Changes = nil
	} else {
		ch.Changes = managedContents(ch.Changes, d.Object, live, red)
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
			ch.Action, ch.Reason = Update, ReasonOperationDone
		}
	}
}

func allSensitive(changes []FieldChange) bool {
	for _, c := range changes {
		if !c.Sensitive {
			return false
		}
	}
	return true
}

// renderedOutside returns the objects of cluster rendered by instances outside the plan's
// order, inOrder (--target; nil without targets, then every instance is planned and the set is
// empty): moving an object between components must not delete it.
func renderedOutside(rendered map[config.InstanceAddress]*rendering.Rendered, inOrder map[string]bool, cluster string) map[object.Ref]bool {
	out := map[object.Ref]bool{}
	if inOrder == nil {
		return out
	}
	for addr, rd := range rendered {
		if inOrder[string(addr)] || rd == nil {
			continue
		}
		for _, o := range rd.Objects {
			if o.Cluster != cluster {
				continue
			}
			ref := object.RefOf(o.Object)
			out[ref] = true
			if ref.Namespace == "" && o.DefaultNamespace != "" {
				ref.Namespace = o.DefaultNamespace // namespaced kinds get it when planned
				out[ref] = true
			}
		}
	}
	return out
}

// stillNeeded says why an object no component renders any more must not be deleted yet: a
// Namespace that desired objects live in (deleting it would delete them), or a CRD whose kind
// desired objects are of. Empty when it can go.
func stillNeeded(ref object.Ref, live *unstructured.Unstructured, namespaces map[string]bool, kinds map[schema.GroupKind]bool) string {
	switch {
	case ref.Group == "" && ref.Kind == "Namespace" && namespaces[ref.Name]:
		return "objects of the landscape still live in it"
	case ref.Group == "apiextensions.k8s.io" && ref.Kind == "CustomResourceDefinition":
		group, _, _ := unstructured.NestedString(live.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(live.Object, "spec", "names", "kind")
		if kinds[schema.GroupKind{Group: group, Kind: kind}] {
			return "the landscape still renders objects of its kind"
		}
	}
	return ""
}

// pendingKinds returns the kinds defined by CustomResourceDefinitions among the desired objects:
// objects of those kinds can be planned before the server serves them.
func pendingKinds(desired []*Desired) map[schema.GroupKind]observe.Resource {
	out := map[schema.GroupKind]observe.Resource{}
	for _, d := range desired {
		u := d.Object
		if u.GetKind() != "CustomResourceDefinition" || u.GroupVersionKind().Group != "apiextensions.k8s.io" {
			continue
		}
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
		versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
		version := ""
		for _, v := range versions {
			if m, ok := v.(map[string]any); ok && m["storage"] == true {
				version, _ = m["name"].(string)
			}
		}
		if group == "" || kind == "" {
			continue
		}
		out[schema.GroupKind{Group: group, Kind: kind}] = observe.Resource{
			GroupVersionKind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource:         plural,
			Namespaced:       scope == "Namespaced",
		}
	}
	return out
}

// typeOfAddress derives the type of a removed component from its address.
func typeOfAddress(addr string) string {
	parts := strings.SplitN(addr, ".", 3)
	if parts[0] == "component" && len(parts) == 3 {
		return parts[1]
	}
	return parts[0]
}

// sortObjects orders a component's objects by cluster, then in apply order of their kinds
// (object.ApplyRank), then by reference, which is the order apply writes them in.
func sortObjects(objs []*ObjectChange) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Cluster != b.Cluster {
			return a.Cluster < b.Cluster
		}
		if ra, rb := object.ApplyRank(a.Ref.GroupKind()), object.ApplyRank(b.Ref.GroupKind()); ra != rb {
			return ra < rb
		}
		return a.Ref.Less(b.Ref)
	})
}

func outputs(values map[string]OutputValue, red *render.Redactor) []Output {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Output
	for _, n := range names {
		v := values[n]
		o := Output{Name: n, Sensitive: v.Sensitive || red.Sensitive(v.Value), Unknown: !v.Known}
		if !o.Sensitive && !o.Unknown {
			o.Value = v.Value
		}
		out = append(out, o)
	}
	return out
}

// NoteRemoved marks a component whose block is no longer in the landscape.
const NoteRemoved = "removed from the landscape"

// retiredPart reports whether addr is an instance whose lifetime ended (a stale project), which
// renders nothing any more, or a part of a composite instance whose lifetime ended, which
// renders no parts any more.
func retiredPart(rendered map[config.InstanceAddress]*rendering.Rendered, addr string) bool {
	for _, a := range []string{addr, parentAddress(addr)} {
		if rd := rendered[config.InstanceAddress(a)]; rd != nil && rd.Retired != nil {
			return true
		}
	}
	return false
}

// parentAddress is the address of the composite instance a part's address names: the address
// without its last ".<part>"; addr itself when it has none after its instance key.
func parentAddress(addr string) string {
	i := strings.LastIndex(addr, ".")
	if i < 0 || strings.LastIndex(addr, "]") > i {
		return addr
	}
	return addr[:i]
}

// NoteLifetimeEnded marks a part of an instance whose lifetime ended (Plan.Retired).
const NoteLifetimeEnded = "lifetime ended"

// Removed reports whether the plan deletes the component because nothing renders it any more:
// its block was removed, or its composite's lifetime ended.
func (c *Component) Removed() bool {
	return c.Note == NoteRemoved || c.Note == NoteLifetimeEnded
}

// deletionOrder orders removed components so that each comes before every removed component it
// depended on (deps, as recorded when it was applied); among those free to go, the greatest
// address first. Dependencies on components that are not removed, and cycles, which recorded
// graphs cannot have, are ignored.
func deletionOrder(removed []string, deps map[string][]string) []string {
	isRemoved := map[string]bool{}
	for _, r := range removed {
		isRemoved[r] = true
	}
	// dependents counts, per removed component, the removed components still to be deleted
	// that depend on it.
	dependents := map[string]int{}
	for _, r := range removed {
		for _, d := range deps[r] {
			if isRemoved[d] && d != r {
				dependents[d]++
			}
		}
	}
	pending := slices.Clone(removed)
	sort.Sort(sort.Reverse(sort.StringSlice(pending)))
	var out []string
	for len(pending) > 0 {
		next := slices.IndexFunc(pending, func(r string) bool { return dependents[r] == 0 })
		if next < 0 {
			next = 0 // a cycle: fall back to address order
		}
		r := pending[next]
		pending = slices.Delete(pending, next, next+1)
		out = append(out, r)
		for _, d := range deps[r] {
			if isRemoved[d] && d != r {
				dependents[d]--
			}
		}
	}
	return out
}

// stamp labels and annotates a desired object as the landscape's, with its configuration hash
// computed without secrets.
func (r *Result) stamp(d *Desired, landscape string) error {
	redact := func(obj map[string]any) {
		redactInPlace(obj, r.Redactor)
		// When a generated secret was issued is as random as its value: leaving it out keeps a
		// saved plan that generates one from going stale on re-planning.
		if md, ok := obj["metadata"].(map[string]any); ok {
			if ann, ok := md["annotations"].(map[string]any); ok {
				delete(ann, secrets.IssuedAtAnnotation)
				delete(ann, secrets.ValidUntilAnnotation)
			}
		}
	}
	if err := inventory.Stamp(d.Object, landscape, string(d.Component), redact); err != nil {
		return fmt.Errorf("component %s: %w", d.Component, err)
	}
	return nil
}

// Restamp computes a desired object's configuration hash again after apply changed it: the
// values apply reads from live objects (render.LiveValue) belong in the hash the next plan
// compares with, or an edit of such a field would count as a change of the landscape rather
// than drift.
func (r *Result) Restamp(d *Desired) error { return r.stamp(d, r.Plan.Landscape) }
