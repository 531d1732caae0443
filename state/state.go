package state

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// FormatVersion is the version of the state's JSON form ("1.0"; states of earlier versions wrote
// the number 1, which reads as 1.0). A state written by a newer gardener, even of a newer minor
// version, is refused rather than misread and then overwritten without the fields it added.
var FormatVersion = formatversion.Version{Major: 1, Minor: 0}

// State is what gardener applied for one landscape. It is the inventory prune and destroy rely
// on, so it is written before objects are created (as Pending) and after they are (as Objects).
type State struct {
	FormatVersion formatversion.Version `json:"format_version"`
	// Lineage is a random UUID made when the state is first written and never changed, so that a
	// state copied from another landscape (or recreated from scratch) is never taken for the
	// continuation of this one.
	Lineage string `json:"lineage"`
	// Serial grows by one on every write, so that a writer holding an older copy cannot overwrite
	// a newer one.
	Serial    int64  `json:"serial"`
	Landscape string `json:"landscape"`
	// Components are keyed by instance address ("component.helm_release.cert_manager",
	// `shoot.dev["a"]`).
	Components map[string]*Component `json:"components"`
	// Retired are the instances whose lifetime ended (an expired trial shoot), by instance
	// address: an apply began deleting them, and plans do not create them again while their
	// blocks stay. Removing the block, or "gardener state rm", forgets the record.
	Retired map[string]*Retirement `json:"retired,omitempty"`
	// Outputs are the landscape's outputs (its output blocks) as the last apply left them, by
	// name, for `gardener output`. A sensitive output is recorded without its value: values that
	// are secret never reach the state.
	Outputs map[string]*Output `json:"outputs,omitempty"`
}

// Output is one landscape output as an apply recorded it.
type Output struct {
	// Value is the output's value as JSON; absent for sensitive and unknown outputs.
	Value any `json:"value,omitempty"`
	// Sensitive outputs are recorded without their value.
	Sensitive bool `json:"sensitive,omitempty"`
	// Unknown is set for an output whose value was not known when it was recorded (it depends
	// on a value a live object provides that it does not yet).
	Unknown bool `json:"unknown,omitempty"`
}

// Retirement records the end of an instance's lifetime.
type Retirement struct {
	// Ended is when the lifetime ended, RFC 3339.
	Ended string `json:"ended"`
	// Reason names what set the end, such as the Quota with the cluster lifetime.
	Reason string `json:"reason"`
	// EndedBy names the Gardener controller that deleted what the instance applied, when not
	// the engine (a stale project's Project, deleted by gardener-controller-manager).
	EndedBy string `json:"ended_by,omitempty"`
}

// Component is what gardener applied for one component instance.
type Component struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	// ConfigHash is the hash of the configuration last applied, so that a plan can tell a changed
	// landscape from drift without rendering the old configuration again.
	ConfigHash string `json:"config_hash,omitempty"`
	// DependsOn are the components this one was applied after. When its block is removed from
	// the landscape, the plan deletes it before them, so that a removed shoot goes in the order of
	// its delete flow although its block, and so its graph, is gone.
	DependsOn []string `json:"depends_on,omitempty"`
	// Outputs are the component's non-sensitive outputs; sensitive ones never reach the state.
	Outputs map[string]any `json:"outputs,omitempty"`
	Objects []Object       `json:"objects"`
	// Pending objects were about to be applied when the state was written (intent recorded
	// before writing to the cluster); an interrupted apply leaves them pending, and the next
	// plan must look for them so nothing is orphaned.
	Pending []Object `json:"pending,omitempty"`
}

// Object is one object a component owns, named independently of its API version (Version is the
// one it was applied in, kept for deleting it without discovery).
type Object struct {
	// Cluster is the name of the landscape's cluster block the object lives in.
	Cluster   string `json:"cluster"`
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// UID tells a recreated object (same name, new UID) from the one gardener applied.
	UID string `json:"uid,omitempty"`
	// Sensitive says which parts of the reference depend on a sensitive value of the landscape
	// ("name", "namespace" or "name,namespace"), as the object's
	// declarative-gardener.io/sensitive-identity annotation does: the state must hold the real
	// name to find the object again, but what prints the state hides it (Shown).
	Sensitive string `json:"sensitive,omitempty"`
}

// Shown is the object as printed for people and scripts: its sensitive name or namespace hidden
// (object.Ref.Hidden).
func (o Object) Shown() Object {
	r := o.Ref().Hidden(o.Sensitive)
	o.Name, o.Namespace = r.Name, r.Namespace
	return o
}

// Ref is the object's reference as the engine tracks objects.
func (o Object) Ref() object.Ref {
	return object.Ref{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// GroupKind is the object's group and kind.
func (o Object) GroupKind() schema.GroupKind { return schema.GroupKind{Group: o.Group, Kind: o.Kind} }

// Empty is the state of a landscape nothing was applied to yet: no lineage, serial 0.
func Empty(landscape string) *State {
	return &State{FormatVersion: FormatVersion, Landscape: landscape, Components: map[string]*Component{}}
}

// Kinds returns the kinds of every object the state records in cluster, pending or applied,
// sorted by group and kind. Observe lists exactly these kinds (besides the rendered ones), so
// that objects of a kind the landscape no longer renders are still found and pruned.
func (s *State) Kinds(cluster string) []schema.GroupKind {
	seen := map[schema.GroupKind]bool{}
	for _, c := range s.Components {
		for _, list := range [][]Object{c.Objects, c.Pending} {
			for _, o := range list {
				if o.Cluster == cluster {
					seen[o.GroupKind()] = true
				}
			}
		}
	}
	kinds := make([]schema.GroupKind, 0, len(seen))
	for gk := range seen {
		kinds = append(kinds, gk)
	}
	object.SortGroupKinds(kinds)
	return kinds
}

// Addresses returns the component addresses in the state, sorted, for deterministic output.
func (s *State) Addresses() []string {
	addrs := make([]string, 0, len(s.Components))
	for a := range s.Components {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	return addrs
}
