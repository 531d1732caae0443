package apply

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/graph"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/readiness"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/report"
)

// DefaultComponentParallelism is how many components an apply keeps in progress by default. Most
// of a component's time goes to waiting for readiness (a watch, or nothing for objects ready as
// written), not to requests, which the clients bound per cluster (cluster.Options.MaxInFlight):
// with ten at a time an apply of 100 shoots spent most of its time with every slot waiting.
const DefaultComponentParallelism = 100

// Options configure Run.
type Options struct {
	// Parallelism bounds the components in progress at once; zero means
	// DefaultComponentParallelism.
	Parallelism    int
	ForceConflicts bool
	// AllowDestroy are addresses (instances, or blocks for all their instances) whose protected
	// objects may be deleted or replaced.
	AllowDestroy []string
	// Timeout bounds each component's readiness wait.
	Timeout time.Duration
	// Ready waits for readiness; nil means the typed, watch-based checks of engine/readiness.
	Ready    Readiness
	Recorder Recorder
	Events   func(Event)
	// Reports, when set, writes what the engine reports as gardenlet about the instances the
	// plan changes (engine/report): their operations through the apply, and the deletion of the
	// objects it reports on. Failed writes go to Warn.
	Reports *report.Writer
	Warn    func(error)
}

// dynamicClient is what a connected cluster offers apply.
type dynamicClient interface{ Dynamic() dynamic.Interface }

// Run executes a computed plan: components in graph order (reverse order for a destroy plan),
// each once its dependencies are done. With a StateRecorder it records the intent of the whole
// plan before the first component starts and returns once every outcome is stored; the error
// then reports a state that could not be written, the Result what was applied.
func Run(ctx context.Context, out *planner.Outcome, opts Options) (*Result, error) {
	pl := out.Result.Plan
	clients := map[string]dynamic.Interface{}
	for name, c := range out.Clusters {
		dc, ok := c.(dynamicClient)
		if !ok {
			return nil, fmt.Errorf("cluster %s cannot be written to (a snapshot?)", name)
		}
		clients[name] = dc.Dynamic()
	}
	awaits := map[string]*Awaited{}
	for _, c := range pl.Components {
		if c.Action != plan.Read {
			continue
		}
		rd := out.Rendered[config.InstanceAddress(c.Address)]
		if rd == nil || rd.Await == nil {
			return nil, fmt.Errorf("%s depends on values known only after apply (%s); rendering during apply is not supported yet: apply its dependencies first with --target", c.Address, c.Note)
		}
		awaits[c.Address] = &Awaited{Await: rd.Await, Input: render.Input{Landscape: pl.Landscape, Address: c.Address}}
	}
	// Values a live object provides (render.LiveValue) are read when their component is applied;
	// a value nothing provides cannot be.
	for _, d := range out.Result.Desired {
		if render.Unprovided(d.Object.Object) {
			return nil, fmt.Errorf("%s: %s holds a value known only after apply and no component provides it yet", d.Component, d.Object.GetName())
		}
	}
	ready := opts.Ready
	if ready == nil {
		watches := map[string]*readiness.Watches{}
		for name, client := range clients {
			watches[name] = readiness.NewWatches(client)
			defer watches[name].Close()
		}
		ready = typedReadiness(watches)
	}
	e := &Executor{
		Clients: clients, Desired: out.Result.Desired, ForceConflicts: opts.ForceConflicts, TakeBack: !pl.StrictConflicts,
		AllowDestroy: allowed(out, opts.AllowDestroy), Protected: preventDestroy(out), Timeouts: readyTimeouts(out),
		Ready: ready, Timeout: opts.Timeout, Recorder: opts.Recorder, Restamp: out.Result.Restamp, Awaits: awaits,
	}
	e.Served = servedResources(ctx, out)
	e.Live = func(cluster string, ref object.Ref) *unstructured.Unstructured {
		if obs := out.Result.Observed[cluster]; obs != nil {
			return obs.Objects[ref]
		}
		return nil
	}
	recorder, _ := opts.Recorder.(*StateRecorder)
	if recorder != nil {
		e.Lineage = recorder.Lineage
		for _, c := range pl.Components {
			recorder.Types[c.Address] = c.Type
			if !c.Removed() {
				recorder.DependsOn[c.Address] = deletionDependencies(c, out.Rendered[config.InstanceAddress(c.Address)], out.Graph)
			}
		}
	}
	e.WithResources(func(cluster string, gk schema.GroupKind) (schema.GroupVersionResource, bool) {
		obs := out.Result.Observed[cluster]
		if obs == nil {
			return schema.GroupVersionResource{}, false
		}
		r, ok := obs.Resources[gk]
		return r.GVR(), ok
	})
	deps := map[string][]string{}
	for _, c := range pl.Components {
		addr := config.InstanceAddress(c.Address)
		if out.Graph == nil || !out.Graph.Has(addr) {
			continue
		}
		next := out.Graph.Dependencies(addr)
		if pl.Destroy {
			next = out.Graph.DeletionDependencies(addr) // dependents go first
		}
		deps[c.Address] = []string{}
		for _, d := range next {
			deps[c.Address] = append(deps[c.Address], string(d))
		}
	}
	components := pl.Components
	if pl.Destroy {
		components = make([]*plan.Component, len(pl.Components))
		for i, c := range pl.Components {
			components[len(pl.Components)-1-i] = c
		}
	}
	// Ctrl-C stops new components from starting; a component already writing finishes its
	// writes and records them (its readiness wait ends with the interruption).
	work := func(ctx context.Context, c *plan.Component) error {
		return e.apply(context.WithoutCancel(ctx), ctx, c)
	}
	if recorder != nil {
		// One write records what every component is about to do, and the instances whose
		// lifetime ended; components then write no state before they start.
		recorder.Retire(pl.Retired, pl.Forget)
		if err := recorder.IntentAll(ctx, e.intents(components)); err != nil {
			return nil, fmt.Errorf("record intent: %w", err)
		}
	}
	events := opts.Events
	if opts.Reports != nil {
		e.Reported = reportedObjects(out)
		e.Finalize = func(ctx context.Context, o *plan.ObjectChange, apiVersion string) error {
			return opts.Reports.Finalize(ctx, o.Cluster, apiVersion, o.Ref.Kind, o.Ref.Namespace, o.Ref.Name)
		}
		if rep := newReporting(context.WithoutCancel(ctx), out, opts.Reports, opts.Warn); rep != nil {
			events = func(ev Event) {
				rep.event(ev)
				if opts.Events != nil {
					opts.Events(ev)
				}
			}
		}
	}
	res := Schedule(ctx, components, deps, opts.Parallelism, pl.Destroy, work, events)
	res.StatusReports = e.AwaitedReports()
	if recorder != nil {
		for _, c := range res.Components {
			if c.Status == Blocked || c.Status == Skipped {
				recorder.Withdraw(c.Address)
			}
		}
		// Interrupted or not, what was applied is recorded before Run returns.
		if err := recorder.Flush(context.WithoutCancel(ctx)); err != nil {
			return res, fmt.Errorf("record state: %w", err)
		}
	}
	return res, nil
}

// typedReadiness waits with engine/readiness on the clusters' shared watches: a watch per
// resource and cluster that every component waiting for objects of that resource shares. An
// object as the server answered its write (it has a resourceVersion) that is ready by its kind's
// rule is not waited for: a ConfigMap, a Role or a Service is ready once the server has it, and
// most objects are such, so most components finish without opening a watch.
func typedReadiness(watches map[string]*readiness.Watches) Readiness {
	return func(ctx context.Context, cluster string, objs []*unstructured.Unstructured, resources map[object.Ref]schema.GroupVersionResource) error {
		var targets []readiness.Target
		for _, u := range objs {
			if u.GetResourceVersion() != "" && readiness.Check(u).Ready {
				continue
			}
			ref := object.RefOf(u)
			targets = append(targets, readiness.Target{GVR: resources[ref], Namespace: u.GetNamespace(), Name: u.GetName()})
		}
		if len(targets) == 0 {
			return nil
		}
		w, ok := watches[cluster]
		if !ok {
			return fmt.Errorf("cluster %s has no client", cluster)
		}
		return w.Wait(ctx, targets, readiness.WaitOptions{})
	}
}

// allowed expands --allow-destroy addresses to the plan's instance addresses: a block address
// allows its instances, an instance address a composite's parts (address.Address.Matches). Text
// that is no address allows only a component of exactly that address.
func allowed(out *planner.Outcome, addrs []string) map[string]bool {
	m := map[string]bool{}
	for _, c := range out.Result.Plan.Components {
		comp, err := address.Parse(c.Address)
		for _, a := range addrs {
			if allow, aerr := address.Parse(a); c.Address == a || (err == nil && aerr == nil && allow.Matches(comp)) {
				m[c.Address] = true
			}
		}
	}
	return m
}

// readyTimeouts are the instances' lifecycle { ready_timeout }s.
func readyTimeouts(out *planner.Outcome) map[string]time.Duration {
	m := map[string]time.Duration{}
	if out.Graph == nil {
		return m
	}
	for _, addr := range out.Graph.Order() {
		// Parts are configured by their composite's block.
		if inst := out.Graph.Instance(addr); inst != nil && inst.Block.Lifecycle.ReadyTimeout > 0 {
			m[string(addr)] = inst.Block.Lifecycle.ReadyTimeout
		}
	}
	return m
}

// preventDestroy lists the instances of blocks with lifecycle { prevent_destroy = true }.
func preventDestroy(out *planner.Outcome) map[string]bool {
	m := map[string]bool{}
	if out.Graph == nil {
		return m
	}
	for _, addr := range out.Graph.Order() {
		// Parts are configured by their composite's block.
		if inst := out.Graph.Instance(addr); inst != nil && inst.Block.Lifecycle.PreventDestroy {
			m[string(addr)] = true
		}
	}
	return m
}

// deletionDependencies are the dependencies the state records for ordering the deletion of a
// component once its block is removed: its plan dependencies, with a part's sibling dependencies
// replaced by its DeletionDependsOn where the composite set them.
func deletionDependencies(c *plan.Component, rd *rendering.Rendered, g *graph.Graph) []string {
	deps := c.DependsOn
	if g != nil && g.Has(config.InstanceAddress(c.Address)) {
		deps = nil // Follows edges turned around, see RemovalDependencies
		for _, d := range g.RemovalDependencies(config.InstanceAddress(c.Address)) {
			deps = append(deps, string(d))
		}
		sort.Strings(deps)
	}
	if rd == nil || rd.DeletionDependsOn == nil {
		return deps
	}
	siblings := map[string]bool{}
	for _, d := range rd.DependsOn {
		siblings[string(d)] = true
	}
	var out []string
	for _, d := range deps {
		if !siblings[d] {
			out = append(out, d)
		}
	}
	for _, d := range rd.DeletionDependsOn {
		out = append(out, string(d))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// servedResources finds the resource a cluster serves a kind by, for the objects of parts
// rendered during apply: as the plan observed it, or else from the cluster's discovery, read once
// per cluster (the plan observes only the kinds it rendered, and such a part's were not known).
// A kind that discovery lacks makes it read discovery again, bypassing the cluster's cache: its
// CRD may have been applied by this same apply, after the plan read discovery (an apply from
// empty that creates the ManagedResource CRD and then deploys an extension for the installation
// gardener-controller-manager created meanwhile).
func servedResources(ctx context.Context, out *planner.Outcome) func(cluster string, gk schema.GroupKind) (observe.Resource, bool) {
	var mu sync.Mutex
	discovered := map[string]map[schema.GroupKind]observe.Resource{}
	discover := func(c observe.Cluster) map[schema.GroupKind]observe.Resource {
		served := map[schema.GroupKind]observe.Resource{}
		if c == nil {
			return served
		}
		if resources, err := c.Resources(ctx); err == nil {
			for _, r := range resources {
				if _, seen := served[r.GroupKind()]; !seen {
					served[r.GroupKind()] = r
				}
			}
		}
		return served
	}
	return func(cluster string, gk schema.GroupKind) (observe.Resource, bool) {
		if obs := out.Result.Observed[cluster]; obs != nil {
			if r, ok := obs.Resources[gk]; ok {
				return r, true
			}
		}
		mu.Lock()
		defer mu.Unlock()
		c := out.Clusters[cluster]
		served, ok := discovered[cluster]
		if !ok {
			served = discover(c)
			discovered[cluster] = served
		}
		if r, ok := served[gk]; ok {
			return r, true
		}
		refresher, ok := c.(observe.DiscoveryRefresher)
		if !ok || refresher.RefreshDiscovery(ctx) != nil {
			return observe.Resource{}, false
		}
		served = discover(c)
		discovered[cluster] = served
		r, ok := served[gk]
		return r, ok
	}
}
