package planner

import (
	"context"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

// prefetch starts, before the landscape renders, the LISTs its observation will make for the
// kinds the state records: rendering is CPU work and LISTs are round trips, and a plan of a
// landscape with few changes would otherwise wait for the one and then for the other.
//
// It takes the landscape evaluated without rendering it (Plan's evaluation before rendering, a
// few milliseconds per hundred shoots) to learn its name, clusters and state block, reads the state when opts has none yet (the plan
// proper gets the outcome of that read, error included, rather than reading again), and returns
// the prefetches by cluster block. A landscape that does not evaluate is left for the plan proper,
// which reports it: prefetching only moves reads earlier and never decides anything. Clusters
// whose access depends on values known only after rendering are not prefetched.
func prefetch(ctx context.Context, opts *Options, conns *connections, res *config.Result) map[string]*observe.Prefetch {
	if res == nil || res.Evaluated == nil || res.Landscape == nil {
		return nil
	}
	st, err := readStateOnce(opts, res)
	if err != nil {
		return nil
	}
	if st == nil || st.Serial == 0 {
		return nil
	}
	selector := inventory.Selector(res.Landscape.Name)
	names := slices.Sorted(maps.Keys(res.Evaluated.Clusters))
	out := make([]*observe.Prefetch, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		v := res.Evaluated.Clusters[name]
		kinds := st.Kinds(name)
		if len(kinds) == 0 || !v.IsWhollyKnown() {
			continue
		}
		// Connecting and discovery (usually from the client's cache) happen here; the LISTs
		// go on in the background.
		wg.Go(func() {
			if cl, err := conns.get(name, v); err == nil {
				out[i] = observe.StartPrefetch(ctx, cl, selector, kinds, recordedVersions(st, name), opts.Parallelism)
			}
		})
	}
	wg.Wait()
	byCluster := map[string]*observe.Prefetch{}
	for i, name := range names {
		if out[i] != nil {
			byCluster[name] = out[i]
		}
	}
	return byCluster
}

// readStateOnce reads the state before the plan proper does, for the prefetch or for rendering,
// and hands the outcome, error included, to the plan proper instead of letting it read again.
// It returns opts.State when the state was given or read already.
func readStateOnce(opts *Options, res *config.Result) (*state.State, error) {
	if opts.State != nil || opts.ReadState == nil {
		return opts.State, nil
	}
	st, err := opts.ReadState(res)
	opts.ReadState = func(*config.Result) (*state.State, error) { return st, err }
	if err == nil {
		opts.State = st
	}
	return st, err
}

// recordedVersions are, by kind, the API version the state records a cluster's objects of the
// kind in, where it records all of them in one: the version the landscape wrote them in, which
// observation lists the kind in when the landscape still writes it (observe.Request.Versions), so
// that the prefetched LIST is the one it takes.
func recordedVersions(st *state.State, cluster string) map[schema.GroupKind]string {
	var versions plan.SingleVersions
	for _, c := range st.Components {
		for _, o := range append(slices.Clip(c.Objects), c.Pending...) {
			if o.Cluster == cluster {
				versions.Add(schema.GroupKind{Group: o.Group, Kind: o.Kind}, o.Version)
			}
		}
	}
	return versions.Result()
}
