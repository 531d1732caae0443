package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	gschema "github.com/declarative-gardener/gardener/engine/schema"
)

// fate is what pruning does with a live object of the landscape's inventory.
type fate int

const (
	// skipped objects are no candidates for deletion, and nothing needs saying about them: the
	// plan wants them, they are gone, or they belong to a component this plan does not cover.
	skipped fate = iota
	// kept objects would be deleted but stay, with a warning that says why.
	kept
	// deleted objects are planned for deletion, with a reason.
	deleted
	// released objects are handed to the Gardener controller that owns them now: apply removes
	// only the engine's label and annotations and forgets them in the state.
	released
	// held objects would be deleted, but the state records nothing and --prune-without-state was
	// not given: one warning per cluster counts them.
	held
	// alien objects carry the landscape's label but another lineage: another landscape of the
	// same name owns them (or this one did before its state was lost). They are never deleted;
	// one warning per cluster and lineage counts them.
	alien
)

// verdict is pruning's decision on one live object.
type verdict struct {
	fate fate
	// component is the address of the component that applied a deleted or released object.
	component string
	// reason is why a deleted object is deleted, or to whom a released one is released.
	reason Reason
	// warning says why a kept object stays.
	warning string
	// lineage is the lineage of an alien object.
	lineage string
}

// pruning decides which live objects of one cluster's inventory (the objects with the
// landscape's label) the plan deletes; judge holds every rule.
type pruning struct {
	cluster string
	// landscape is the landscape's name, the value of the inventory label; lineage its lineage
	// (Options.Lineage), withState and pruneWithoutState as Options has them.
	landscape                    string
	lineage                      string
	withState, pruneWithoutState bool
	destroy                      bool
	// wanted are the objects the plan wants in the cluster; versioned those of them that
	// supersede earlier versions of themselves (render.Object.Supersedes).
	wanted    map[object.Ref]*Desired
	versioned []*Desired
	// versionedBy are the versioned objects by the composite of their component (parentAddress),
	// built on first use (versionedNear).
	versionedBy map[string][]*Desired
	// namespaces and kinds are those of the wanted objects: a Namespace they live in and a CRD
	// they are objects of stay.
	namespaces map[string]bool
	kinds      map[schema.GroupKind]bool
	// elsewhere are the objects instances outside --target render (moving an object between
	// components must not delete it).
	elsewhere map[object.Ref]bool
	// inOrder are the instances the plan covers; nil when it covers the whole landscape.
	inOrder  map[string]bool
	rendered map[config.InstanceAddress]*rendering.Rendered
	// tracked, when set, says whether the state records an object (Options.Tracked).
	tracked func(cluster string, ref object.Ref) bool
	// recorded are the objects the state records in the cluster as applied, with their UIDs
	// (Options.Recorded).
	recorded map[object.Ref]RecordedObject
	// protects says whether deleting an object needs --allow-destroy (Options.protects).
	protects func(ref object.Ref, component string) bool
	// moved maps the addresses moved blocks moved to their new ones (Options.Moved): a live
	// object names its component by the address it was applied under.
	moved map[string]string
}

// componentOf is the address of the component that applied live, as the state records it now:
// the state's record of it, or else its component annotation, moved on where a moved block moved
// it. The annotation names the address the object was last applied under, which a move
// (a moved block, `gardener state mv`) changed since.
func (p *pruning) componentOf(ref object.Ref, live *unstructured.Unstructured) string {
	if rec, ok := p.recorded[ref]; ok && rec.Component != "" && inventory.Component(live) != "" {
		return rec.Component
	}
	comp := inventory.Component(live)
	if to, ok := p.moved[comp]; ok {
		return to
	}
	return comp
}

// newPruning gathers what the rules consult for one cluster; recorded are the objects the state
// records in it (nil without a state).
func newPruning(opts Options, cluster string, wanted desiredSet, recorded map[object.Ref]RecordedObject) *pruning {
	p := &pruning{
		cluster: cluster, landscape: opts.Landscape, lineage: opts.Lineage, withState: opts.WithState,
		pruneWithoutState: opts.PruneWithoutState, destroy: opts.Destroy,
		wanted: wanted.byRef, namespaces: map[string]bool{}, kinds: map[schema.GroupKind]bool{},
		rendered: opts.Rendered, tracked: opts.Tracked, recorded: recorded, protects: opts.protects,
		moved: map[string]string{},
	}
	for _, m := range opts.Moved {
		p.moved[m.From] = m.To
	}
	if len(opts.TargetAddrs) > 0 {
		p.inOrder = map[string]bool{}
		for _, a := range opts.Order {
			p.inOrder[string(a)] = true
		}
		for _, a := range opts.AlsoPrune {
			p.inOrder[a] = true
		}
	}
	p.elsewhere = renderedOutside(opts.Rendered, p.inOrder, cluster)
	for _, ref := range wanted.refs {
		d := wanted.byRef[ref]
		p.namespaces[d.Object.GetNamespace()] = true
		p.kinds[d.Object.GroupVersionKind().GroupKind()] = true
		if d.Supersedes != nil {
			p.versioned = append(p.versioned, d)
		}
	}
	return p
}

// prune judges every object of the cluster's inventory: it returns the deletions and the
// warnings about the objects it keeps.
func (p *pruning) prune(obs *observe.Observed) (deletions []change, warnings []string) {
	heldBack, aliens := 0, map[string]int{}
	defer func() { warnings = append(warnings, p.summaries(heldBack, aliens)...) }()
	for _, ref := range obs.Inventory {
		live := obs.Objects[ref]
		switch v := p.judge(ref, live); v.fate {
		case held:
			heldBack++
		case alien:
			aliens[v.lineage]++
		case kept:
			warnings = append(warnings, v.warning)
		case deleted:
			deletions = append(deletions, change{component: v.component, ObjectChange: &ObjectChange{
				Cluster: p.cluster, APIVersion: live.GetAPIVersion(), Ref: ref, Action: Delete, Reason: v.reason,
				ResourceVersion: live.GetResourceVersion(),
			}})
		case released:
			var owners []metav1.OwnerReference
			if h := p.handoverOf(ref, v.component); h != nil {
				owners = missingOwners(live, h.OwnerReferences)
			}
			deletions = append(deletions, change{component: v.component, ObjectChange: &ObjectChange{
				Cluster: p.cluster, APIVersion: live.GetAPIVersion(), Ref: ref, Action: Update, Reason: v.reason,
				Changes: unmarking(live), ResourceVersion: live.GetResourceVersion(), OwnerReferences: owners,
			}})
		}
	}
	return deletions, warnings
}

// summaries are the warnings that count the objects pruning held back: those it would delete but
// may not without a state (held), and those of other lineages by lineage (aliens).
func (p *pruning) summaries(heldBack int, aliens map[string]int) []string {
	var out []string
	if heldBack > 0 {
		out = append(out, fmt.Sprintf("the landscape's state records nothing, so nothing is deleted: %d object(s) in cluster %s carry the label %s and would be deleted; plan with --prune-without-state to delete those of this landscape's lineage",
			heldBack, p.cluster, inventory.Selector(p.landscape)))
	}
	ours := "this landscape's lineage " + p.lineage
	switch {
	case p.lineage != "":
	case p.withState:
		ours = "this landscape, which has no state yet"
	default:
		ours = "this plan, which has no state"
	}
	for _, lineage := range slices.Sorted(maps.Keys(aliens)) {
		out = append(out, fmt.Sprintf("%d object(s) in cluster %s carry the label %s with lineage %s, not %s: another landscape of the same name owns them, or this landscape's state was lost (then continue its lineage with --adopt-lineage %s); they are left alone",
			aliens[lineage], p.cluster, inventory.Selector(p.landscape), lineage, ours, lineage))
	}
	return out
}

// judge decides what happens to one live object of the inventory (nil when it was listed but
// is gone). The rules, in the order they apply:
//
//   - an object the plan wants, or that an instance outside --target renders, is skipped;
//   - an object of another lineage is never touched (alien): the landscape's name on it proves
//     nothing, another landscape of the same name may own it;
//   - an object the engine applied (component and hash annotations, recorded in the state) that
//     a Gardener controller owns now is released (handedOver), also when the plan destroys;
//   - a Namespace desired objects live in and a CRD whose kind desired objects are of are kept
//     (stillNeeded);
//   - an object the engine did not apply (no component or hash annotation, or a controlling
//     owner the engine did not set: a controller may have copied the label from its owner, or a
//     person added it) is
//     kept, and so is one the state does not record (state rm forgets objects without deleting
//     them);
//   - an object of a component rendered during apply is skipped, unless the plan destroys;
//   - an object of a component the plan does not cover (--target) is skipped, unless it is a
//     part of a targeted composite whose lifetime ended (retiredPart);
//   - an object its instance predicts a Gardener controller to delete (render.Prediction with
//     the action delete) is skipped, unless the plan destroys: it is the controller's to delete;
//   - an object without a lineage is kept unless the state records it under its UID (applied
//     before objects carried their lineage), when the state records anything;
//   - when the state records nothing, nothing is deleted (held) unless --prune-without-state;
//   - everything else is deleted: because the plan destroys, because its instance's lifetime
//     ended, because a new version of it supersedes it (never for protected objects, which stay
//     removals that need --allow-destroy), or because it was removed from the landscape.
func (p *pruning) judge(ref object.Ref, live *unstructured.Unstructured) verdict {
	if _, wanted := p.wanted[ref]; wanted || p.elsewhere[ref] || live == nil {
		return verdict{fate: skipped}
	}
	if lineage := inventory.Lineage(live); lineage != "" && lineage != p.lineage {
		return verdict{fate: alien, lineage: lineage}
	}
	if comp := p.componentOf(ref, live); comp != "" && inventory.AppliedHash(live) != "" {
		if to := p.handedOver(ref, comp, live); to != "" {
			return verdict{fate: released, component: comp, reason: Reason{Kind: ReasonReleased, Detail: to}}
		}
	}
	if p.tracked != nil && !p.tracked(p.cluster, ref) && (p.claimedByOther(ref, p.componentOf(ref, live)) || p.copyOfRendered(ref, p.componentOf(ref, live))) {
		return verdict{fate: skipped} // a Gardener controller's copy of a landscape's object
	}
	if still := stillNeeded(ref, live, p.namespaces, p.kinds); still != "" {
		return verdict{fate: kept, warning: fmt.Sprintf("%s in cluster %s is no longer rendered but %s; it is kept", ref, p.cluster, still)}
	}
	comp := p.componentOf(ref, live)
	if comp == "" || inventory.AppliedHash(live) == "" || foreignController(live) {
		return verdict{fate: kept, warning: fmt.Sprintf("%s in cluster %s carries the label %s but was not applied by gardener; it is left alone", ref, p.cluster, inventory.Selector(p.landscape))}
	}
	if p.tracked != nil && !p.tracked(p.cluster, ref) {
		return verdict{fate: kept, warning: fmt.Sprintf("%s in cluster %s carries the label %s but the state does not record it; it is left alone", ref, p.cluster, inventory.Selector(p.landscape))}
	}
	if rd := p.rendered[config.InstanceAddress(comp)]; rd != nil && len(rd.Deferred) > 0 && !p.destroy {
		return verdict{fate: skipped} // what a deferred component renders is known only during apply
	}
	retired := retiredPart(p.rendered, comp)
	if p.inOrder != nil && !p.inOrder[comp] && !(retired && p.inOrder[parentAddress(comp)]) {
		return verdict{fate: skipped}
	}
	if deletedByGardener(p.rendered, comp, p.cluster, ref) && !p.destroy {
		return verdict{fate: skipped} // a Shoot whose cluster lifetime ended is the quota loop's to delete
	}
	reason := Reason{Kind: ReasonRemovedFromLandscape}
	switch {
	case p.destroy:
		reason = Reason{Kind: ReasonDestroy}
	case retired:
		reason = Reason{Kind: ReasonLifetimeEnded}
	case requestedDeletion(p.rendered, comp) != "":
		// Its owner asked for the deletion: protected objects go too (the owner confirmed it
		// as Gardener demands), and no approval holds it.
		reason = Reason{Kind: ReasonRequested, Detail: requestedDeletion(p.rendered, comp)}
	case p.protects(ref, comp):
		// A protected object stays a removal, which needs an approval and --allow-destroy,
		// whatever supersedes it.
	default:
		if next := successor(p.versionedNear(comp), comp, ref); next != "" {
			reason = Reason{Kind: ReasonSuperseded, Detail: next}
		}
	}
	switch {
	case p.tracked == nil && !p.pruneWithoutState:
		return verdict{fate: held}
	case p.tracked != nil && inventory.Lineage(live) == "" && (p.recorded[ref].UID == "" || p.recorded[ref].UID != string(live.GetUID())):
		return verdict{fate: kept, warning: fmt.Sprintf("%s in cluster %s carries the label %s but no lineage, and the state does not record it under its UID; it is left alone", ref, p.cluster, inventory.Selector(p.landscape))}
	}
	return verdict{fate: deleted, component: comp, reason: reason}
}

// handedOver names the Gardener controller (or the Gardener object, as Kind/name) that an object
// component applied, and that nothing renders any more, belongs to now; "" when the object is not
// to be released. The state records it and it is in the plan's reach (not of a component rendered
// during apply, inside --target), and one of these holds:
//
//   - its instance's lifetime ended and a Gardener controller deletes what it applied
//     (render.Lifetime.EndedBy);
//   - its component declares it handed over (render.Output.HandedOver): a project's namespace,
//     RBAC and ResourceQuota, which gardener-controller-manager keeps now;
//   - a Gardener object controls the live object (a controller owner reference to an object of a
//     *.gardener.cloud API group), as gardener-controller-manager's Project does the namespace it
//     adopted; live is nil for an object that left the inventory, which this rule cannot judge.
//
// Deleting such an object would take it from its owner (and a namespace with everything in it);
// leaving it with the engine's label would warn on every plan and keep the state recording an
// object the landscape no longer manages.
func (p *pruning) handedOver(ref object.Ref, comp string, live *unstructured.Unstructured) string {
	if p.tracked != nil && !p.tracked(p.cluster, ref) {
		return ""
	}
	rd := p.rendered[config.InstanceAddress(comp)]
	if rd != nil && len(rd.Deferred) > 0 && !p.destroy {
		return ""
	}
	if p.inOrder != nil && !p.inOrder[comp] && !(retiredPart(p.rendered, comp) && p.inOrder[parentAddress(comp)]) {
		return ""
	}
	for _, a := range []string{comp, parentAddress(comp)} {
		if r := p.rendered[config.InstanceAddress(a)]; r != nil && r.Retired != nil && r.Retired.EndedBy != "" {
			return r.Retired.EndedBy
		}
	}
	if h := p.handoverOf(ref, comp); h != nil {
		return h.Controller
	}
	if live == nil {
		return ""
	}
	if owner := metav1.GetControllerOf(live); owner != nil && isGardenerGroup(owner.APIVersion) && !appliedOwner(live, owner.UID) {
		return owner.Kind + "/" + owner.Name
	}
	return ""
}

// foreignController reports whether something other than the landscape made the live object
// controlled by another object (a controller copied it, or adopted it).
func foreignController(live *unstructured.Unstructured) bool {
	owner := metav1.GetControllerOf(live)
	return owner != nil && !appliedOwner(live, owner.UID)
}

// appliedOwner reports whether the landscape itself set the owner reference of that uid, as the
// engine applies the objects gardenlet publishes for a Shoot, controlled by it: such an object
// was never someone else's, and goes with what rendered it. The engine's field manager owns the
// reference in the object's managed fields then.
func appliedOwner(live *unstructured.Unstructured, uid types.UID) bool {
	key := fmt.Sprintf(`k:{"uid":%q}`, uid)
	for _, mf := range live.GetManagedFields() {
		if mf.Manager != inventory.FieldManager || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &fields); err != nil {
			continue
		}
		meta, _ := fields["f:metadata"].(map[string]any)
		refs, _ := meta["f:ownerReferences"].(map[string]any)
		if _, ok := refs[key]; ok {
			return true
		}
	}
	return false
}

// handoverOf is the handover that names ref among those of component comp and of its
// composite (render.Output.HandedOver); nil when neither names it.
func (p *pruning) handoverOf(ref object.Ref, comp string) *render.Handover {
	for _, a := range []string{comp, parentAddress(comp)} {
		rd := p.rendered[config.InstanceAddress(a)]
		if rd == nil {
			continue
		}
		for i := range rd.HandedOver {
			if h := &rd.HandedOver[i]; p.names(h, ref) {
				return h
			}
		}
		if a == parentAddress(a) {
			break // not a part
		}
	}
	return nil
}

// claimedByOther reports whether an instance other than comp (and its composite) hands ref
// over: an object a Gardener controller made as a copy of one comp renders, which carries comp's
// label and annotations because the controller copies them from the source
// (gardener-controller-manager's copies of the garden's Secrets in seed-<name>).
func (p *pruning) claimedByOther(ref object.Ref, comp string) bool {
	for addr, rd := range p.rendered {
		if rd == nil || string(addr) == comp || string(addr) == parentAddress(comp) {
			continue
		}
		for i := range rd.HandedOver {
			if p.names(&rd.HandedOver[i], ref) {
				return true
			}
		}
	}
	return false
}

// copyOfRendered reports whether comp, the component a live object's annotations name, renders an
// object of the same kind and name in another namespace of the pruned cluster: the live object is
// a copy a controller made of it, with its labels and annotations (gardener-controller-manager
// copies the garden's role-labelled Secrets into seed-<name> for every Seed, also one the
// landscape does not declare, whose copies no handover names).
func (p *pruning) copyOfRendered(ref object.Ref, comp string) bool {
	rd := p.rendered[config.InstanceAddress(comp)]
	if rd == nil {
		return false
	}
	for _, o := range rd.Objects {
		u := o.Object
		ns := u.GetNamespace()
		if ns == "" {
			ns = o.DefaultNamespace
		}
		if o.Cluster == p.cluster && u.GetKind() == ref.Kind && u.GetName() == ref.Name && ns != ref.Namespace && ns != "" &&
			u.GroupVersionKind().Group == ref.Group {
			return true
		}
	}
	return false
}

// names reports whether a handover names the object ref of the pruned cluster.
func (p *pruning) names(h *render.Handover, ref object.Ref) bool {
	return h.Cluster == p.cluster && h.Group == ref.Group && h.Kind == ref.Kind && h.Namespace == ref.Namespace && h.Name != nil && h.Name.MatchString(ref.Name)
}

// missingOwners are the owner references of want the live object does not carry yet.
func missingOwners(live *unstructured.Unstructured, want []metav1.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, w := range want {
		if !slices.ContainsFunc(live.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == w.UID }) {
			out = append(out, w)
		}
	}
	return out
}

// forget releases what the state records in the cluster (recorded, each with the component that
// applied it) but the landscape's inventory no longer holds, where a Gardener controller owns it
// by its component's word (handedOver): a project's built-in roles, whose labels
// gardener-controller-manager removes when it takes them over, or a stale Project it deleted. The
// release has nothing to unmark; apply forgets the object in the state (and its patch of an object
// that still exists removes nothing). Everything else the state records and the inventory lacks
// stays recorded, as before: a deleted object is created again when it is wanted.
func (p *pruning) forget(recorded map[object.Ref]RecordedObject, obs *observe.Observed) []change {
	listed := make(map[object.Ref]bool, len(obs.Inventory))
	for _, ref := range obs.Inventory {
		listed[ref] = true
	}
	var out []change
	for _, ref := range slices.SortedFunc(maps.Keys(recorded), func(a, b object.Ref) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	}) {
		comp := recorded[ref].Component
		if _, wanted := p.wanted[ref]; wanted || p.elsewhere[ref] || listed[ref] {
			continue
		}
		if _, served := obs.Resources[ref.GroupKind()]; !served {
			continue // a kind the cluster no longer serves has no objects to release
		}
		to := p.handedOver(ref, comp, nil)
		if to == "" {
			continue
		}
		out = append(out, change{component: comp, ObjectChange: &ObjectChange{
			Cluster: p.cluster, APIVersion: recorded[ref].APIVersion, Ref: ref, Action: Update, Reason: Reason{Kind: ReasonReleased, Detail: to},
		}})
	}
	return out
}

// isGardenerGroup reports whether an API version is of one of Gardener's API groups
// (core.gardener.cloud, seedmanagement.gardener.cloud, ...).
func isGardenerGroup(apiVersion string) bool {
	group, _, found := strings.Cut(apiVersion, "/")
	return found && strings.HasSuffix(group, ".gardener.cloud")
}

// unmarking lists what releasing a live object changes: the removal of the landscape's label
// and annotations (inventory.Markings), by path.
func unmarking(live *unstructured.Unstructured) []FieldChange {
	marks := inventory.Markings(live)
	out := make([]FieldChange, 0, len(marks))
	for _, path := range slices.Sorted(maps.Keys(marks)) {
		out = append(out, FieldChange{Path: path, Before: marks[path], HasBefore: true})
	}
	return out
}

// versionedNear lists the versioned objects that can supersede an object of component comp,
// those of comp and of the other parts of its composite (successor), in their order: a plan
// that deletes the earlier versions of a fleet's ManagedResource Secrets would otherwise look
// at every versioned object of the cluster for each of them.
func (p *pruning) versionedNear(comp string) []*Desired {
	if p.versionedBy == nil {
		p.versionedBy = map[string][]*Desired{}
		for _, d := range p.versioned {
			k := parentAddress(string(d.Component))
			p.versionedBy[k] = append(p.versionedBy[k], d)
		}
	}
	return p.versionedBy[parentAddress(comp)]
}

// successor names the object of component comp among versioned that supersedes the live
// object ref (render.Object.Supersedes); "" when none does. Only an object of the same component,
// or of another part of the same composite, supersedes it: a shoot's gardener-resource-manager,
// once it has its token, supersedes the bootstrap certificate its composite generated as a part
// of its own. A Namespace that supersedes an earlier one (a renamed namespace, such as a zonal
// Istio gateway's) supersedes what its component applied in it too: the objects move with the
// namespace.
func successor(versioned []*Desired, comp string, ref object.Ref) string {
	for _, d := range versioned {
		if string(d.Component) != comp && !siblingParts(string(d.Component), comp) {
			continue
		}
		r := object.RefOf(d.Object)
		if r.Group == ref.Group && r.Kind == ref.Kind && r.Namespace == ref.Namespace && d.Supersedes.MatchString(ref.Name) {
			return r.Name
		}
		if r.Group == "" && r.Kind == "Namespace" && ref.Namespace != "" && d.Supersedes.MatchString(ref.Namespace) {
			return r.Name
		}
	}
	return ""
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

// deletedByGardener reports whether the instance of component comp (or its composite) predicts
// that a Gardener controller deletes the live object ref of cluster.
func deletedByGardener(rendered map[config.InstanceAddress]*rendering.Rendered, comp, cluster string, ref object.Ref) bool {
	for _, a := range []string{comp, parentAddress(comp)} {
		rd := rendered[config.InstanceAddress(a)]
		if rd == nil {
			continue
		}
		for _, p := range rd.Predictions {
			gv, _ := schema.ParseGroupVersion(p.APIVersion)
			if p.Action == "delete" && p.Cluster == cluster && gv.Group == ref.Group && p.Kind == ref.Kind && p.Namespace == ref.Namespace && p.Name == ref.Name {
				return true
			}
		}
	}
	return false
}

// requestedDeletion is why the owner of the objects of part comp asked for their deletion
// (render.Output.Requested of its composite); "" when nobody did.
func requestedDeletion(rendered map[config.InstanceAddress]*rendering.Rendered, comp string) string {
	a, err := address.Parse(comp)
	if err != nil || a.Part == "" {
		return ""
	}
	parent, _ := a.Parent()
	rd := rendered[config.InstanceAddress(parent.String())]
	if rd == nil {
		return ""
	}
	for _, r := range rd.Requested {
		if r.PartPrefix != "" && strings.HasPrefix(a.Part, r.PartPrefix) {
			return r.Why
		}
	}
	return ""
}

// siblingParts reports whether a and b are two parts of the same composite instance.
func siblingParts(a, b string) bool {
	pa, pb := parentAddress(a), parentAddress(b)
	return pa != a && pb != b && pa == pb
}

// parentAddress is the address of the composite instance a part's address names; addr itself
// for any other address.
func parentAddress(addr string) string {
	if a, err := address.Parse(addr); err == nil {
		if parent, isPart := a.Parent(); isPart {
			return parent.String()
		}
	}
	return addr
}

// removedComponent is the plan's component for addr, whose objects the plan deletes although
// no planned instance renders it: its block was removed, or its composite's lifetime ended.
func removedComponent(addr string, rendered map[config.InstanceAddress]*rendering.Rendered) *Component {
	note := removedNote
	if retiredPart(rendered, addr) {
		note = lifetimeEndedNote
	}
	return &Component{Address: addr, Type: typeOfAddress(addr), Objects: []*ObjectChange{}, Note: note}
}

// typeOfAddress derives the type of a removed component from its address: a component's type,
// or the kind of a garden, seed or shoot block, also for their parts; empty for text that is no
// address.
func typeOfAddress(addr string) string {
	a, _ := address.Parse(addr)
	if a.Kind == gschema.KindComponent {
		return a.Type
	}
	return string(a.Kind)
}

// Removed reports whether the plan deletes the component because nothing renders it any more:
// its block was removed, or its composite's lifetime ended.
func (c *Component) Removed() bool {
	return c.Note.Kind == NoteRemoved || c.Note.Kind == NoteLifetimeEnded
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
