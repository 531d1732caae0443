package observe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
)

// DefaultParallelism bounds concurrent reads when Request.Parallelism is not set; it matches
// the CLI's --parallelism default.
const DefaultParallelism = 10

// Request says what to observe in one cluster.
type Request struct {
	// Selector is the landscape's inventory label selector
	// ("declarative-gardener.io/landscape=local"); every LIST uses it. It must not be empty: an
	// empty selector would list, and offer for pruning, every object of a kind.
	Selector string
	// Desired are the objects the plan wants to exist.
	Desired []object.Ref
	// Kinds are further kinds to list, beyond those of Desired, because earlier applies created
	// objects of them (from state); objects of these kinds may need pruning anywhere.
	Kinds []schema.GroupKind
	// Pending are kinds whose CRD this same plan creates. A pending kind the server does not
	// serve yet costs no request; its desired objects are absent and the kind is reported in
	// Observed.Unserved.
	Pending map[schema.GroupKind]bool
	// Parallelism bounds concurrent LISTs and GETs; zero means DefaultParallelism.
	Parallelism int
	// Prefetched are LISTs started earlier (StartPrefetch); Observe takes those it needs.
	Prefetched *Prefetch
	// ByName reads every object of Desired and Recorded by name, with a GET each or, where a
	// namespace holds at least ByNameListMin of one kind, one LIST of that namespace: the read
	// of a plan of a few instances of a large landscape (one shoot of thousands), whose
	// cluster-wide LISTs would cost in proportion to the landscape, even scoped to a namespace
	// (a project's Shoots). Kinds is ignored: what prune must see of the planned instances is
	// what the state records of them, in Recorded.
	ByName bool
	// Recorded are objects read by name besides Desired (ByName only): those the state records
	// of the planned instances, applied or pending.
	Recorded []object.Ref
	// Versions are, by kind, the API version the plan writes the kind's objects in, where it is
	// not the one discovery prefers (Istio's v1beta1 Gateways on a server preferring v1): the
	// kind is listed in that version, so that the diff gets the live objects as the landscape
	// writes them rather than with a GET of each, and Observed.Resources names the kind in it.
	// Where that LIST fails (a version the server no longer serves, a snapshot that did not
	// record it), the kind is listed in the preferred version as without it.
	Versions map[schema.GroupKind]string
}

// Observed is what one cluster holds of the requested objects and kinds.
type Observed struct {
	// Objects holds every object found, by LIST or GET, complete (managedFields included: the
	// diff needs them).
	Objects map[object.Ref]*unstructured.Unstructured
	// Inventory lists, sorted, the found objects that carry the selector's labels: the only
	// objects prune may ever delete.
	Inventory []object.Ref
	// Unserved are the kinds the server does not serve: pending kinds whose CRD is not applied
	// yet, and kinds from Request.Kinds that are gone (their objects went with them).
	Unserved map[schema.GroupKind]bool
	// Resources resolves every served kind that was observed, in the version it was listed in
	// (Request.Versions), else the one discovery prefers.
	Resources map[schema.GroupKind]Resource
	// Requests counts the reads made, for tests and --verbose.
	Requests Requests
}

// Requests counts the reads Observe made through Cluster (a LIST counts once however many pages
// it took).
type Requests struct {
	Discovery int `json:"discovery"`
	Lists     int `json:"lists"`
	Gets      int `json:"gets"`
}

// DiscoveryRefresher is implemented by clusters whose discovery may come from a cache (the live
// client caches it on disk across runs). When a kind Observe needs is missing, it refreshes once
// before deciding the kind is not served: a stale cache must not turn existing objects into
// "absent" ones.
type DiscoveryRefresher interface {
	RefreshDiscovery(ctx context.Context) error
}

// Observe reads the live state of req's objects and kinds at a cost of O(GroupKinds): one
// discovery call, one paged LIST per kind with the inventory selector (in parallel), and one GET
// per desired object the LISTs did not return (an object that exists without our labels and
// would be adopted, or one that does not exist). It never GETs an object a LIST returned, nor
// one whose namespace is a desired Namespace that does not exist.
//
// Scoping rule: a kind's LIST is limited to one namespace when every desired object of that kind
// lives in that namespace and the kind is not in req.Kinds; otherwise it is cluster-wide. Kinds
// from req.Kinds are always listed cluster-wide because their previously applied objects, which
// prune must see, may live in namespaces the plan no longer mentions. With req.ByName nothing is
// listed across namespaces: every desired and recorded object is read with a GET, or with the
// LIST of its namespace when that namespace holds at least ByNameListMin objects of its kind.
func Observe(ctx context.Context, c Cluster, req Request) (*Observed, error) {
	if req.Selector == "" {
		return nil, errors.New("observe: the inventory label selector is empty")
	}
	selector, err := labels.Parse(req.Selector)
	if err != nil {
		return nil, fmt.Errorf("observe: inventory label selector %q: %w", req.Selector, err)
	}
	parallelism := req.Parallelism
	if parallelism <= 0 {
		parallelism = DefaultParallelism
	}

	desired := groupDesired(req.Desired)
	listed := map[schema.GroupKind]bool{}
	for _, gk := range req.Kinds {
		listed[gk] = true
	}
	// read are the objects to find by name when LISTs do not return them.
	read := desired
	if req.ByName {
		listed = map[schema.GroupKind]bool{}
		read = groupDesired(append(slices.Clip(req.Desired), req.Recorded...))
	}
	kinds := sortedKinds(read, listed)

	out := &Observed{
		Objects:   map[object.Ref]*unstructured.Unstructured{},
		Unserved:  map[schema.GroupKind]bool{},
		Resources: map[schema.GroupKind]Resource{},
	}
	served, err := resolve(ctx, c, kinds, &out.Requests)
	if err != nil {
		return nil, err
	}

	var lists []listCall
	for _, gk := range kinds {
		res, ok := served[gk]
		if !ok {
			if len(desired[gk]) > 0 && !req.Pending[gk] {
				return nil, fmt.Errorf("observe: kind %s is not served by the cluster (used by %s)", object.GroupKindString(gk), desired[gk][0])
			}
			out.Unserved[gk] = true
			continue
		}
		out.Resources[gk] = res
		if err := checkScope(res, read[gk]); err != nil {
			return nil, err
		}
		if !hasVerb(res, "list") {
			continue // its desired objects are fetched one by one below
		}
		if req.ByName {
			lists = append(lists, namespaceLists(gk, res, read[gk])...)
			continue
		}
		lists = append(lists, listCall{gk: gk, res: res, namespace: listNamespace(res, desired[gk], listed[gk])})
	}
	for i := range lists {
		lists[i].res, lists[i].preferred = inVersion(lists[i].res, req.Versions[lists[i].gk])
	}

	var mu sync.Mutex
	var listCount, getCount atomic.Int64
	// listedIn is the version each kind was listed in; mixedVersions the kinds some of whose
	// LISTs fell back to the preferred version.
	listedIn, mixedVersions := map[schema.GroupKind]string{}, map[schema.GroupKind]bool{}
	err = forEach(ctx, len(lists), parallelism, func(ctx context.Context, i int) error {
		call := lists[i]
		list := func(res Resource) ([]unstructured.Unstructured, error) {
			listCount.Add(1)
			items, ok, err := req.Prefetched.take(ctx, res.GVR(), call.namespace, req.Selector)
			if !ok {
				items, err = c.List(ctx, res.GVR(), call.namespace, req.Selector)
			}
			return items, err
		}
		items, err := list(call.res)
		used := call.res
		if err != nil && call.preferred != nil && ctx.Err() == nil {
			items, err = list(*call.preferred)
			used = *call.preferred
		}
		if err != nil {
			return fmt.Errorf("observe %s: %w", object.GroupKindString(call.gk), err)
		}
		mu.Lock()
		defer mu.Unlock()
		if prev, seen := listedIn[call.gk]; seen && prev != used.Version {
			mixedVersions[call.gk] = true
		}
		listedIn[call.gk] = used.Version
		for j := range items {
			obj := &items[j]
			out.Objects[object.Ref{Group: call.gk.Group, Kind: call.gk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}] = obj
		}
		return nil
	})
	out.Requests.Lists = int(listCount.Load())
	if err != nil {
		return nil, err
	}
	// A kind listed in the version the landscape writes is observed in it: the objects the
	// LISTs did not return are read in it too, and the daemon watches it.
	for gk, version := range listedIn {
		if res := out.Resources[gk]; !mixedVersions[gk] && version != res.Version {
			res.Version = version
			out.Resources[gk] = res
		}
	}

	// Desired objects the LISTs did not return are fetched one by one: Namespaces first, since
	// nothing lives in a namespace that does not exist. A plan that adds a shoot would otherwise
	// GET every object of its control plane only to learn that none exists.
	var namespaceGets, gets []object.Ref
	for _, gk := range kinds {
		if _, ok := out.Resources[gk]; !ok {
			continue
		}
		for _, ref := range read[gk] {
			switch {
			case out.Objects[ref] != nil:
			case gk == namespaceKind:
				namespaceGets = append(namespaceGets, ref)
			default:
				gets = append(gets, ref)
			}
		}
	}
	fetch := func(refs []object.Ref) error {
		return forEach(ctx, len(refs), parallelism, func(ctx context.Context, i int) error {
			ref := refs[i]
			getCount.Add(1)
			obj, err := c.Get(ctx, out.Resources[ref.GroupKind()].GVR(), ref.Namespace, ref.Name)
			if err != nil {
				return fmt.Errorf("observe %s: %w", ref, err)
			}
			if obj != nil {
				mu.Lock()
				out.Objects[ref] = obj
				mu.Unlock()
			}
			return nil
		})
	}
	err = fetch(namespaceGets)
	if err == nil {
		absent := map[string]bool{}
		for _, ref := range namespaceGets {
			if out.Objects[ref] == nil {
				absent[ref.Name] = true
			}
		}
		gets = slices.DeleteFunc(gets, func(ref object.Ref) bool { return ref.Namespace != "" && absent[ref.Namespace] })
		err = fetch(gets)
	}
	out.Requests.Gets = int(getCount.Load())
	if err != nil {
		return nil, err
	}

	for ref, obj := range out.Objects {
		if selector.Matches(labels.Set(obj.GetLabels())) {
			out.Inventory = append(out.Inventory, ref)
		}
	}
	sort.Slice(out.Inventory, func(i, j int) bool { return out.Inventory[i].Less(out.Inventory[j]) })
	return out, nil
}

// namespaceKind is the GroupKind of Namespaces.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// listCall is one planned LIST.
type listCall struct {
	gk        schema.GroupKind
	res       Resource
	namespace string
	// preferred is the resource in the version discovery prefers, when res lists another
	// (Request.Versions): listed where that LIST fails.
	preferred *Resource
}

// inVersion is res in version, and the preferred resource to fall back to, when version is set
// and differs from res's.
func inVersion(res Resource, version string) (Resource, *Resource) {
	if version == "" || version == res.Version {
		return res, nil
	}
	preferred := res
	res.Version = version
	return res, &preferred
}

// groupDesired groups desired objects by kind, sorted and without duplicates.
func groupDesired(refs []object.Ref) map[schema.GroupKind][]object.Ref {
	out := map[schema.GroupKind][]object.Ref{}
	for _, ref := range refs {
		out[ref.GroupKind()] = append(out[ref.GroupKind()], ref)
	}
	for gk, refs := range out {
		sort.Slice(refs, func(i, j int) bool { return refs[i].Less(refs[j]) })
		out[gk] = slices.Compact(refs)
	}
	return out
}

// sortedKinds is every kind to observe, sorted by group and kind.
func sortedKinds(desired map[schema.GroupKind][]object.Ref, listed map[schema.GroupKind]bool) []schema.GroupKind {
	set := map[schema.GroupKind]bool{}
	for gk := range desired {
		set[gk] = true
	}
	for gk := range listed {
		set[gk] = true
	}
	kinds := make([]schema.GroupKind, 0, len(set))
	for gk := range set {
		kinds = append(kinds, gk)
	}
	object.SortGroupKinds(kinds)
	return kinds
}

// resolve maps kinds to served resources with one discovery call, or two when a kind is missing
// and the cluster's discovery may be stale.
func resolve(ctx context.Context, c Cluster, kinds []schema.GroupKind, requests *Requests) (map[schema.GroupKind]Resource, error) {
	served, err := discover(ctx, c, requests)
	if err != nil {
		return nil, err
	}
	refresher, ok := c.(DiscoveryRefresher)
	if !ok {
		return served, nil
	}
	for _, gk := range kinds {
		if _, ok := served[gk]; ok {
			continue
		}
		if err := refresher.RefreshDiscovery(ctx); err != nil {
			return nil, fmt.Errorf("observe: refresh discovery: %w", err)
		}
		return discover(ctx, c, requests)
	}
	return served, nil
}

// discover indexes the served resources by kind; where two resources serve one kind, the first
// in Resources' order wins.
func discover(ctx context.Context, c Cluster, requests *Requests) (map[schema.GroupKind]Resource, error) {
	requests.Discovery++
	resources, err := c.Resources(ctx)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	served := make(map[schema.GroupKind]Resource, len(resources))
	for _, r := range resources {
		if _, dup := served[r.GroupKind()]; !dup {
			served[r.GroupKind()] = r
		}
	}
	return served, nil
}

// ByNameListMin is how many objects of one kind in one namespace a plan reading by name
// (Request.ByName) reads with one LIST of that namespace instead of a GET each: a shoot's control
// plane namespace or the garden's namespace, whose population does not grow with the fleet the
// way a project's Shoots or cluster-scoped kinds do.
const ByNameListMin = 4

// namespaceLists are the LISTs a plan reading by name makes of one namespaced kind: one per
// namespace holding at least ByNameListMin of its objects.
func namespaceLists(gk schema.GroupKind, res Resource, refs []object.Ref) []listCall {
	if !res.Namespaced {
		return nil
	}
	count := map[string]int{}
	for _, ref := range refs {
		count[ref.Namespace]++
	}
	var out []listCall
	for _, ns := range slices.Sorted(maps.Keys(count)) {
		if count[ns] >= ByNameListMin {
			out = append(out, listCall{gk: gk, res: res, namespace: ns})
		}
	}
	return out
}

// checkScope rejects desired objects whose namespace does not fit their kind's scope: such a
// reference could never match a listed object and would be fetched from the wrong URL.
func checkScope(res Resource, refs []object.Ref) error {
	for _, ref := range refs {
		switch {
		case res.Namespaced && ref.Namespace == "":
			return fmt.Errorf("observe %s: kind %s is namespaced but the object has no namespace", ref, object.GroupKindString(res.GroupKind()))
		case !res.Namespaced && ref.Namespace != "":
			return fmt.Errorf("observe %s: kind %s is cluster-scoped but the object has a namespace", ref, object.GroupKindString(res.GroupKind()))
		}
	}
	return nil
}

// listNamespace applies the scoping rule documented on Observe.
func listNamespace(res Resource, desired []object.Ref, fromState bool) string {
	if !res.Namespaced || fromState || len(desired) == 0 {
		return ""
	}
	ns := desired[0].Namespace
	for _, ref := range desired[1:] {
		if ref.Namespace != ns {
			return ""
		}
	}
	return ns
}

func hasVerb(res Resource, verb string) bool {
	return slices.Contains(res.Verbs, verb)
}
