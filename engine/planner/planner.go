// Package planner runs the plan pipeline end to end: load and render the landscape, build the
// component graph, connect to its clusters (or a snapshot of them), observe, diff and assemble
// the plan. plan, show, snapshot and later apply and the daemon all start here.
package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/state"
)

// Connector returns the cluster a plan reads for a landscape's cluster block: a live client, a
// recorder around one, or a snapshot.
type Connector func(name string, access cluster.Access) (observe.Cluster, error)

// DifferFactory returns the differ for one cluster.
type DifferFactory func(name string, c observe.Cluster) (plan.Differ, error)

// Options are the inputs of a plan run.
type Options struct {
	Dir       string
	Schemas   *schema.Registry
	Renderers render.Registry
	Inputs    config.InputSources
	// Targets limit the plan to these addresses and their dependencies.
	Targets []string
	// evaluateAll turns config.Scope off, for tests that compare a targeted plan with the
	// same plan over the whole landscape.
	evaluateAll bool
	// Exclusive, when set, is what a daemon shard plans (exclusive.go): exactly these instances
	// write; what they depend on is planned read-only.
	Exclusive *Exclusive
	Destroy   bool
	// Parallelism bounds concurrent requests per cluster.
	Parallelism int
	Connect     Connector
	Differs     DifferFactory
	// ServerDryRun checks every object whose local diff is not empty with a real server-side
	// apply dry-run (live clusters only).
	ServerDryRun bool
	// State is the landscape's state, when it has one: the kinds it applied are listed even
	// when nothing renders them any more, and only objects it records are pruned.
	State *state.State
	// ReadState, when set and State is not, reads the state once the landscape is loaded (its
	// state block is known) and before any cluster is observed.
	ReadState func(res *config.Result) (*state.State, error)
	// Now is the time the landscape is evaluated at: generated secrets are judged against it
	// (renewal at 80% of validity), hibernation schedules and maintenance windows read it; zero
	// means the current time.
	Now time.Time
	// ObservedAt is when the live objects are read, for a plan made for a later time Now
	// (`gardener plan --at`): what Gardener's controllers will do in between, render functions
	// predict as done (render.Input.ObservedAt). Zero means Now: the live objects are taken as
	// they are at the evaluation time.
	ObservedAt time.Time
	// DeferSecrets plans generated secrets without generating new key material
	// (rendering.Renderer.DeferSecrets), for plans that do not read the live clusters
	// (`--offline`, `--observed`) and so are never applied as they are.
	DeferSecrets bool
	// Recorded says that Connect serves recorded clusters (`--offline`, `--observed`): there is
	// no kubeconfig to check before rendering, so the landscape is evaluated once, not twice.
	Recorded bool
	// Rotate names the generated secret classes to regenerate ("ca", "token", ...).
	Rotate map[string]bool
	// Prefetch starts the LISTs of the kinds the state records while the landscape renders
	// (see prefetch.go). For live clusters, where a LIST is a round trip.
	Prefetch bool
	// ReadHints is the directory of the read-ahead's hint files (readahead.go): with Prefetch, a
	// plan of the whole landscape starts the reads its previous plan's rendering made before
	// rendering, and records the reads this one made. Empty turns the read-ahead off.
	ReadHints string
	// PruneWithoutState lets a plan whose state records nothing (a first apply, a lost state, a
	// plan without state) delete the objects of the landscape's lineage, or without a lineage,
	// that it no longer renders (`--prune-without-state`); without it such a plan deletes
	// nothing.
	PruneWithoutState bool
	// AdoptLineage continues a lineage in an empty state (`--adopt-lineage`): the landscape's
	// state was lost, and the objects and generated Secrets of that lineage are its own again
	// (ownership.go). A state that exists with another lineage is an error.
	AdoptLineage string
	// StrictConflicts keeps people's changes of the landscape's objects conflicts
	// (`--strict-conflicts`); the landscape's strict_conflicts does too, and either one is
	// enough: a flag cannot loosen what the landscape asks for.
	StrictConflicts bool
}

// Outcome is everything a plan run produced.
type Outcome struct {
	Load     *config.Result
	Graph    *graph.Graph
	Rendered map[config.InstanceAddress]*rendering.Rendered
	// Targets are the instances --target resolved to.
	Targets []config.InstanceAddress
	// Waiting are the instances an exclusive plan (Options.Exclusive) depends on outside its
	// own that have changes of their own: a shard applies nothing until their shard applied
	// them.
	Waiting []string
	// Clusters are the connected clusters by cluster block name.
	Clusters map[string]observe.Cluster
	Result   *plan.Result
	// Listed are the lists render functions read (rendering.Renderer.Listed).
	Listed []render.ListRef
	// State is the state the plan was made from, with the moves of the landscape's moved blocks
	// made (a copy: the state the plan was given or read is not changed); nil without a state.
	// Apply records into it.
	State *state.State
}

// Revisit is the earliest time at which the landscape's rendering changes by time alone (a
// hibernation schedule's next trigger); zero when none does. The daemon plans again then.
func (o *Outcome) Revisit() time.Time {
	var next time.Time
	for _, rd := range o.Rendered {
		next = render.Earliest(next, rd.Revisit)
	}
	return next
}

// Conditions are the instances' derived conditions (render.Output.Conditions), one line each
// ("seed.local: ExtensionsReady True (...)"), sorted by instance, in the order each instance gave.
func (o *Outcome) Conditions() []string {
	var out []string
	for _, addr := range slices.Sorted(maps.Keys(o.Rendered)) {
		for _, c := range o.Rendered[addr].Conditions {
			out = append(out, string(addr)+": "+c.String())
		}
	}
	return out
}

// Prepare loads, renders and graphs the landscape without touching a cluster. Diagnostics with
// errors mean the landscape is invalid and nothing else may happen.
func Prepare(opts Options) (*Outcome, hcl.Diagnostics) {
	return prepare(opts, newConnections(opts.Connect, landscapefs.New(opts.Dir, opts.Inputs.Trust)), nil)
}

// prepare loads, renders and graphs the landscape; st, when set, reads the landscape's state for
// the renderer's questions about instances whose lifetime ended in an earlier apply and about the
// generated Secrets the landscape owns.
func prepare(opts Options, conns *connections, st func() (*state.State, error)) (*Outcome, hcl.Diagnostics) {
	r := rendering.NewRenderer(opts.Renderers, opts.Dir)
	// The import blocks are known once the landscape is parsed, before any Secret is generated.
	var landscape *config.Landscape
	imported := func(cluster, namespace, name string) bool {
		return landscape != nil && landscape.ImportOf(cluster, object.Ref{Kind: "Secret", Namespace: namespace, Name: name}) != nil
	}
	if st != nil {
		r.Retired, r.Provenance = retiredFromState(st), provenanceFromState(st, imported)
	}
	if opts.Connect != nil {
		r.Lookup = conns.lookup
		r.Get = conns.getObject
		r.List = conns.listObjects
	} else {
		r.Placeholders = true // nothing is planned without clusters (gardener graph)
	}
	// One evaluation time for the whole run: every schedule and renewal is judged against it.
	r.Now, r.Rotate, r.ObservedAt, r.DeferSecrets = opts.Now, opts.Rotate, opts.ObservedAt, opts.DeferSecrets
	if r.Now.IsZero() {
		r.Now = time.Now()
	}
	hooks := r.Hooks()
	hooks.Targets = scopeTargets(opts)
	parsed := hooks.Parsed
	hooks.Parsed = func(l *config.Landscape) {
		landscape = l
		if parsed != nil {
			parsed(l)
		}
	}
	res, diags := config.LoadWith(opts.Dir, opts.Schemas, opts.Inputs, hooks)
	out := &Outcome{Load: res, Rendered: r.Rendered, Clusters: conns.clusters, Listed: r.Listed()}
	if diags.HasErrors() || res.Evaluated == nil {
		return out, diags
	}
	// Namespaces, CRDs and ControllerRegistrations order components only within one cluster.
	byCluster := map[string]map[config.InstanceAddress][]*unstructured.Unstructured{}
	for addr, rd := range r.Rendered {
		objects := rd.Objects
		if len(rd.Deferred) > 0 && rd.Await != nil {
			objects = rd.Await.Shapes // not rendered yet: what it will render orders it
		}
		for _, o := range objects {
			if byCluster[o.Cluster] == nil {
				byCluster[o.Cluster] = map[config.InstanceAddress][]*unstructured.Unstructured{}
			}
			byCluster[o.Cluster][addr] = append(byCluster[o.Cluster][addr], withDefaultNamespace(o))
		}
	}
	var implicit []graph.Edge
	for _, objects := range byCluster {
		implicit = append(implicit, graph.ImplicitEdges(objects)...)
	}
	implicit = append(implicit, followEdges(r.Rendered, byCluster)...)
	var parts []graph.Part
	for addr, rd := range r.Rendered {
		if rd.Parent != "" {
			parts = append(parts, graph.Part{Addr: addr, Parent: rd.Parent, DependsOn: rd.DependsOn, Detached: rd.Detached})
		}
	}
	g, d := graph.Build(res.Evaluated, implicit, parts...)
	diags = append(diags, d...)
	out.Graph = g
	if d.HasErrors() {
		return out, diags
	}
	if res.Evaluated.Skipped == 0 {
		// Only a plan that rendered everything sees every implicit edge.
		if d := independence(res.Evaluated, implicit, r.Rendered); d.HasErrors() {
			return out, append(diags, d...)
		}
	}
	if len(opts.Targets) > 0 {
		for _, t := range opts.Targets {
			addrs, td := g.ResolveTarget(t)
			diags = append(diags, td...)
			out.Targets = append(out.Targets, addrs...)
		}
		if diags.HasErrors() {
			return out, diags
		}
		if opts.Destroy {
			// Destroying a component destroys what depends on it first, as in Terraform.
			// A composite's parts go with it.
			out.Graph = g.Filter(closure(out.Targets, func(a config.InstanceAddress) []config.InstanceAddress {
				return append(g.Dependents(a), g.Parts(a)...)
			}))
		} else {
			sub, err := g.Subgraph(out.Targets...)
			if err != nil {
				return out, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid target", Detail: err.Error()})
			}
			out.Graph = sub
		}
	}
	return out, diags
}

// Plan runs the whole pipeline. Diagnostics report problems of the landscape; an error reports a
// problem reaching or reading a cluster.
func Plan(ctx context.Context, opts Options) (*Outcome, hcl.Diagnostics, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now() // rendering and the maintenance windows judge the same moment
	}
	if err := opts.Exclusive.apply(&opts); err != nil {
		return nil, nil, err
	}
	adoptErr := withAdoptedLineage(&opts)
	conns := newConnections(opts.Connect, landscapefs.New(opts.Dir, opts.Inputs.Trust))
	// The landscape evaluated without rendering (a few milliseconds): its clusters are checked
	// before anything renders, and the prefetch learns what to list from it. A landscape that
	// does not evaluate is left to the plan proper, which reports it.
	var evaluated *config.Result
	if opts.Connect != nil && !opts.Recorded {
		if res, d := EvaluateScoped(opts); !d.HasErrors() {
			if diags := checkClusters(res, conns); diags.HasErrors() {
				return &Outcome{Load: res, Clusters: conns.clusters}, diags, nil
			}
			evaluated = res
		}
	}
	var prefetched map[string]*observe.Prefetch
	if opts.Prefetch && opts.Connect != nil && (evaluated == nil || evaluated.Evaluated == nil || evaluated.Evaluated.Skipped == 0) {
		// A plan that leaves most of the landscape out reads its instances' objects by name
		// (plan.Options.ByName); listing every kind the state records would cost in
		// proportion to the landscape.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // LISTs the plan did not take end with it
		prefetched = prefetch(ctx, &opts, conns, evaluated)
		conns.prefetched = prefetched
		conns.ahead = startReadAhead(ctx, &opts, conns, evaluated)
	}
	out, diags := prepare(opts, conns, earlyState(&opts))
	if diags.HasErrors() || out.Graph == nil {
		return out, diags, nil
	}
	if conns.ahead != nil && out.Load.Evaluated.Skipped == 0 {
		var secrets []string
		for _, rd := range out.Rendered {
			secrets = append(secrets, rd.Secrets...)
		}
		conns.ahead.save(secrets)
	}
	if adoptErr != nil {
		return out, diags, adoptErr
	}
	if opts.State == nil && opts.ReadState != nil {
		st, err := opts.ReadState(out.Load)
		if err != nil {
			return out, diags, err
		}
		opts.State = st
	}
	if opts.AdoptLineage != "" && opts.State == nil {
		return out, diags, errNoStateToAdopt(opts.AdoptLineage)
	}
	ev := out.Load.Evaluated
	l := out.Load.Landscape
	// The moved blocks move the state's records before anything reads them: what the old
	// addresses applied is the new addresses' own, not removed from the landscape.
	movedState, moved, err := MoveState(opts.State, l.Moved)
	if err != nil {
		return out, append(diags, moveDiagnostic(err)), nil
	}
	for _, m := range idleMoves(opts.State, movedState, l.Moved) {
		diags = append(diags, idleMoveWarning(m))
	}
	opts.State, out.State = movedState, movedState
	for _, name := range slices.Sorted(maps.Keys(ev.Clusters)) {
		if _, err := conns.get(name, ev.Clusters[name]); err != nil {
			return out, diags, err
		}
	}
	out.Clusters = conns.clusters
	order := out.Graph.Order()
	deps := map[config.InstanceAddress][]config.InstanceAddress{}
	for _, addr := range order {
		deps[addr] = out.Graph.Dependencies(addr)
	}
	var mu sync.Mutex
	differs := map[string]plan.Differ{}
	differOf := func(name string) (plan.Differ, error) {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := differs[name]; ok {
			return d, nil
		}
		d, err := opts.Differs(name, out.Clusters[name])
		if err == nil {
			differs[name] = d
		}
		return d, err
	}
	var dryRun plan.DryRun
	if opts.ServerDryRun {
		dryRun = func(ctx context.Context, name string, gvr k8sschema.GroupVersionResource, desired, live *unstructured.Unstructured) ([]diff.Change, error) {
			d, err := differOf(name)
			if err != nil {
				return nil, err
			}
			return serverDryRun(ctx, out.Clusters[name], d, gvr, desired, live)
		}
	}
	var previous map[string][]k8sschema.GroupKind
	var tracked func(string, object.Ref) bool
	var serial int64
	if opts.State != nil {
		serial = opts.State.Serial
	}
	var previousDeps map[string][]string
	var created func(cluster string, ref object.Ref) bool
	var recordedIn func(cluster string) map[object.Ref]plan.RecordedObject
	if st := opts.State; st != nil && st.Serial > 0 {
		previousDeps = map[string][]string{}
		for addr, c := range st.Components {
			previousDeps[addr] = c.DependsOn
		}
		previous = map[string][]k8sschema.GroupKind{}
		recorded := map[string]bool{}
		for _, c := range st.Components {
			for _, o := range append(append([]state.Object(nil), c.Objects...), c.Pending...) {
				recorded[o.Cluster+"/"+o.Ref().String()] = true
			}
		}
		for name := range out.Clusters {
			previous[name] = st.Kinds(name)
		}
		tracked = func(cluster string, ref object.Ref) bool { return recorded[cluster+"/"+ref.String()] }
		byCluster := map[string]map[object.Ref]plan.RecordedObject{}
		for _, addr := range slices.Sorted(maps.Keys(st.Components)) {
			for _, o := range st.Components[addr].Objects {
				if byCluster[o.Cluster] == nil {
					byCluster[o.Cluster] = map[object.Ref]plan.RecordedObject{}
				}
				apiVersion := o.Version
				if o.Group != "" {
					apiVersion = o.Group + "/" + o.Version
				}
				byCluster[o.Cluster][o.Ref()] = plan.RecordedObject{Component: addr, APIVersion: apiVersion, UID: o.UID}
			}
		}
		recordedIn = func(cluster string) map[object.Ref]plan.RecordedObject { return byCluster[cluster] }
		// Applied objects carry the UID the cluster gave them; pending ones (an interrupted
		// apply's intent) do not, and a create-only object that is only pending was never
		// created.
		applied := map[string]bool{}
		for _, c := range st.Components {
			for _, o := range c.Objects {
				if o.UID != "" {
					applied[o.Cluster+"/"+o.Ref().String()] = true
				}
			}
		}
		created = func(cluster string, ref object.Ref) bool { return applied[cluster+"/"+ref.String()] }
	}
	prevent := map[string]bool{}
	for _, addr := range order {
		if inst := out.Graph.Instance(addr); inst != nil && inst.Block.Lifecycle.PreventDestroy {
			prevent[string(addr)] = true // parts are configured by their composite's block
		}
	}
	var lineage string
	if opts.State != nil {
		lineage = opts.State.Lineage
	}
	removed := opts.Exclusive.removed(opts.State, ev)
	res, err := plan.Build(ctx, plan.Options{
		Lineage:           lineage,
		WithState:         opts.State != nil,
		PruneWithoutState: opts.PruneWithoutState,
		PreventDestroy:    prevent,
		PreviousKinds:     previous,
		Prefetched:        prefetched,
		PreviousDependsOn: previousDeps,
		Now:               opts.Now,
		Tracked:           tracked,
		Recorded:          recordedIn,
		Created:           created,
		Landscape:         l.Name,
		Order:             order,
		DependsOn:         deps,
		Rendered:          out.Rendered,
		Clusters:          out.Clusters,
		Destroy:           opts.Destroy,
		Targets:           opts.Targets,
		TargetAddrs:       out.Targets,
		ByName:            ev.Skipped > 0,
		RecordedOf:        recordedOf(opts.State, append(slices.Clone(order), addresses(removed)...)),
		AlsoPrune:         removed,
		Parallelism:       opts.Parallelism,
		DryRun:            dryRun,
		Outputs:           outputValues(ev, l),
		Moved:             moved,
		Imports:           imports(l),
		Differs:           differOf,
		StrictConflicts:   opts.StrictConflicts || l.StrictConflicts,
	})
	if err != nil {
		return out, diags, err
	}
	if d := checkImports(l, res.Plan); d.HasErrors() {
		return out, append(diags, d...), nil
	}
	res.Plan.StateSerial = serial
	res.Plan.PruneWithoutState, res.Plan.AdoptLineage = opts.PruneWithoutState, opts.AdoptLineage
	res.Plan.StrictConflicts = opts.StrictConflicts || l.StrictConflicts
	if opts.AdoptLineage != "" && serial == 0 {
		res.Plan.Notices = append(res.Plan.Notices, fmt.Sprintf("the landscape's state is empty: applying this plan continues lineage %s and records the objects of it the landscape renders", opts.AdoptLineage))
	}
	recordRetirements(res.Plan, opts.State, out.Rendered)
	out.Waiting = opts.Exclusive.waiting(res.Plan, out.Targets, removed)
	for class, on := range opts.Rotate {
		if on {
			res.Plan.Rotate = append(res.Plan.Rotate, class)
		}
	}
	sort.Strings(res.Plan.Rotate)
	out.Result = res
	return out, diags, nil
}

// withDefaultNamespace returns the object as the graph sees it: with its default namespace
// unless it names one or is of a kind the kinds table knows to be cluster-scoped (the built-in
// ones and Gardener's: the virtual garden's API and the seeds' extensions). Before discovery,
// those are the only kinds the graph treats as cluster-scoped; any other object without a
// namespace is placed in its component's default namespace, so that it is ordered after the
// component creating that namespace. Over-approximating costs an extra edge (which could, rarely,
// close a cycle that is then reported), never a missing one.
func withDefaultNamespace(o render.Object) *unstructured.Unstructured {
	if o.DefaultNamespace == "" || o.Object.GetNamespace() != "" || kinds.ClusterScoped(o.Object.GroupVersionKind().GroupKind()) {
		return o.Object
	}
	c := o.Object.DeepCopy()
	c.SetNamespace(o.DefaultNamespace)
	return c
}

// closure is the set of start and everything next reaches from it, transitively.
func closure(start []config.InstanceAddress, next func(config.InstanceAddress) []config.InstanceAddress) map[config.InstanceAddress]bool {
	seen := map[config.InstanceAddress]bool{}
	queue := append([]config.InstanceAddress(nil), start...)
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		if seen[a] {
			continue
		}
		seen[a] = true
		queue = append(queue, next(a)...)
	}
	return seen
}

// AccessOf reads a cluster block's value; a relative kubeconfig path is relative to the
// landscape directory, so a landscape means the same wherever it is planned from. In confined
// mode the kubeconfig must lie inside the landscape directory (and may not run programs) or in
// one of the operator's kubeconfig directories; the loader reports the same at the attribute,
// and this check stands between the landscape and the connection should anything skip it.
func AccessOf(paths *landscapefs.Dir, v cty.Value) (cluster.Access, error) {
	var a cluster.Access
	if v == cty.NilVal {
		return a, fmt.Errorf("cluster configuration could not be evaluated")
	}
	// A context or path may come from a sensitive variable; it is used, never printed.
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsWhollyKnown() || !v.Type().IsObjectType() {
		return a, fmt.Errorf("cluster configuration is not known")
	}
	if kc := v.GetAttr("kubeconfig"); !kc.IsNull() {
		path, own, err := paths.Kubeconfig(kc.AsString())
		if err == nil && own {
			err = paths.CheckKubeconfig(kc.AsString())
		}
		if err != nil {
			return a, err
		}
		a.Kubeconfig = path
	}
	if c := v.GetAttr("context"); !c.IsNull() {
		a.Context = c.AsString()
	}
	if ic := v.GetAttr("in_cluster"); !ic.IsNull() {
		a.InCluster = ic.True()
	}
	return a, nil
}

func outputValues(ev *config.Evaluated, l *config.Landscape) map[string]plan.OutputValue {
	out := map[string]plan.OutputValue{}
	for name, o := range l.Outputs {
		v, ok := ev.Outputs[name]
		if !ok {
			continue
		}
		unmarked, marks := v.UnmarkDeep()
		_, sensitive := marks[config.SensitiveMark]
		ov := plan.OutputValue{Known: unmarked.IsWhollyKnown(), Sensitive: o.Sensitive || sensitive}
		if ov.Known && !ov.Sensitive {
			if jv, err := render.JSONValue(unmarked); err == nil {
				ov.Value = jv
			}
		}
		out[name] = ov
	}
	return out
}

// SavedInputs decodes a saved plan's variable values (sensitive ones are not among them).
func SavedInputs(f *plan.File) (map[string]cty.Value, error) {
	out := map[string]cty.Value{}
	for name, v := range f.Variables {
		if v.Sensitive || len(v.Type) == 0 {
			continue
		}
		ty, err := ctyjson.UnmarshalType(v.Type)
		if err != nil {
			return nil, fmt.Errorf("saved variable %s: %w", name, err)
		}
		val, err := ctyjson.Unmarshal(v.Value, ty)
		if err != nil {
			return nil, fmt.Errorf("saved variable %s: %w", name, err)
		}
		out[name] = val
	}
	return out, nil
}

// SavedVariables are the input variables as a saved plan keeps them: sensitive ones without
// their value.
func SavedVariables(ev *config.Evaluated, l *config.Landscape) (map[string]plan.Variable, error) {
	out := map[string]plan.Variable{}
	for name, decl := range l.Variables {
		v, ok := ev.Variables[name]
		if !ok {
			continue
		}
		unmarked, marks := v.UnmarkDeep()
		if _, sensitive := marks[config.SensitiveMark]; sensitive || decl.Sensitive {
			out[name] = plan.Variable{Sensitive: true}
			continue
		}
		ty, err := ctyjson.MarshalType(unmarked.Type())
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", name, err)
		}
		val, err := ctyjson.Marshal(unmarked, unmarked.Type())
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", name, err)
		}
		out[name] = plan.Variable{Type: json.RawMessage(ty), Value: json.RawMessage(val)}
	}
	return out, nil
}

// followEdges are the edges from each part that follows an object another controller creates
// (render.Await) to the instances rendering what makes the controller create it, as its After
// selects them among the rendered objects (byCluster): a Follows edge, applied after and
// deleted after them.
func followEdges(rendered map[config.InstanceAddress]*rendering.Rendered, byCluster map[string]map[config.InstanceAddress][]*unstructured.Unstructured) []graph.Edge {
	seen := map[graph.Edge]bool{}
	var out []graph.Edge
	for from, rd := range rendered {
		if rd.Await == nil || rd.Await.After == nil {
			continue
		}
		for cluster, objects := range byCluster {
			for to, objs := range objects {
				if to == from {
					continue
				}
				for _, o := range objs {
					reason := rd.Await.After(cluster, o)
					e := graph.Edge{From: from, To: to, Reason: reason, Kind: graph.Follows}
					if reason != "" && !seen[e] {
						seen[e] = true
						out = append(out, e)
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b graph.Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}
