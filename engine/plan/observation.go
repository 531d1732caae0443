package plan

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
)

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

// observeCluster reads what the plan needs of one cluster: the landscape's objects of every
// kind it renders there (listed whether or not discovery served them when the plan started:
// a cached discovery document can predate a CRD, and observe refreshes it, so the LISTs must not
// depend on how fresh the cache was; a snapshot replays them exactly), and of every kind it
// applied before (state) or a destroy plan renders, where the cluster serves them.
//
// Every kind is listed across all namespaces: an object the landscape applied before may be in
// a namespace it no longer renders into, and only a cluster-wide LIST finds it for pruning.
// (Once state records the namespaces of earlier applies, LISTs can be scoped.)
func observeCluster(ctx context.Context, opts Options, name string, wanted desiredSet, renderedKinds []schema.GroupKind, served, pending map[schema.GroupKind]observe.Resource) (*observe.Observed, error) {
	kinds := map[schema.GroupKind]bool{}
	var listed []schema.GroupKind
	for gk := range wanted.kinds {
		kinds[gk] = true
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
	req := observe.Request{
		Selector:    inventory.Selector(opts.Landscape),
		Desired:     wanted.refs,
		Kinds:       listed,
		Pending:     pendingSet,
		Parallelism: opts.Parallelism,
		Prefetched:  opts.Prefetched[name],
		ByName:      opts.ByName,
		Versions:    writtenVersions(wanted),
	}
	if opts.ByName && opts.RecordedOf != nil {
		req.Recorded = opts.RecordedOf(name)
	}
	return observe.Observe(ctx, opts.Clusters[name], req)
}

// writtenVersions are, by kind, the API version the desired objects of the kind are written in,
// where they are all written in one: observation lists the kind in it, so that the diff needs no
// GET of each object in the version it writes (observe.Request.Versions).
func writtenVersions(wanted desiredSet) map[schema.GroupKind]string {
	var versions SingleVersions
	for _, d := range wanted.byRef {
		gvk := d.Object.GroupVersionKind()
		versions.Add(gvk.GroupKind(), gvk.Version)
	}
	return versions.Result()
}

// SingleVersions collects, by kind, the one API version objects of the kind are in: a kind seen
// in several versions is left out, to be listed in the version the server prefers.
type SingleVersions struct {
	versions map[schema.GroupKind]string
	mixed    map[schema.GroupKind]bool
}

// Add records an object of gk in version.
func (s *SingleVersions) Add(gk schema.GroupKind, version string) {
	if s.versions == nil {
		s.versions, s.mixed = map[schema.GroupKind]string{}, map[schema.GroupKind]bool{}
	}
	if v, seen := s.versions[gk]; seen && v != version {
		s.mixed[gk] = true
	}
	s.versions[gk] = version
}

// Result is the version of every kind seen in one version only.
func (s *SingleVersions) Result() map[schema.GroupKind]string {
	out := map[schema.GroupKind]string{}
	for gk, v := range s.versions {
		if !s.mixed[gk] {
			out[gk] = v
		}
	}
	return out
}
