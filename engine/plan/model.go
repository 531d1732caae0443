// Package plan computes what applying a landscape would do and records it as data. Build takes
// the rendered instances (engine/rendering), reads the live clusters at a cost of one LIST per
// kind (GETs only for objects to adopt), diffs each object locally with server-side apply
// semantics and decides which objects the landscape no longer wants are deleted. Views
// (engine/views) print the result; apply executes it. Every value in a plan is already redacted:
// no secret reaches a view, a JSON document or a saved plan's reviewed part.
//
// model.go is the plan's JSON form (docs/plan-format.md). Build (build.go) assembles a plan from
// the desired state (desired.go), the observation of each cluster (observation.go), the
// comparison of each desired object with its live state (compare.go) and pruning, the deletion
// of what the landscape no longer wants (pruning.go).
package plan

import (
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/engine/object"
)

// FormatVersion is the version of the plan's JSON form (docs/plan-format.md). The minor version
// grows with compatible additions, the major one with changes consumers must adapt to.
const FormatVersion = "1.12"

// Action is what apply does to an object or component.
type Action string

// The actions of a plan.
const (
	Create  Action = "create"
	Update  Action = "update"
	Replace Action = "replace"
	Delete  Action = "delete"
	NoOp    Action = "no-op"
	// Read is the action of a component that cannot be rendered before apply (it depends on
	// values known only then): it is rendered and planned again during apply.
	Read Action = "render-during-apply"
)

// ReasonKind is why an object changes, without the parameter some kinds carry.
type ReasonKind string

// The kinds of reasons of object changes.
const (
	ReasonMissing       ReasonKind = "missing"
	ReasonConfigChanged ReasonKind = "config_changed"
	ReasonDrift         ReasonKind = "drift"
	// ReasonImmutableField is the reason of a replacement; its parameter is the path of the
	// first immutable field that changes.
	ReasonImmutableField       ReasonKind = "immutable_field"
	ReasonRemovedFromLandscape ReasonKind = "removed_from_landscape"
	// ReasonConflict is the reason of an update that takes fields over from another field
	// manager, its parameter.
	ReasonConflict ReasonKind = "conflict"
	ReasonAdopt    ReasonKind = "adopt"
	ReasonDestroy  ReasonKind = "destroy"
	// ReasonCreatedOnce is the reason of the no-op of a create-only object
	// (render.CreateOnlyAnnotation) that the landscape created before and something deleted
	// since, typically its consumer: it is not created again.
	ReasonCreatedOnce ReasonKind = "created_once"
	// ReasonMaintenanceWindow is the reason of the no-op of a change held back until its
	// component's maintenance window (render.Component.Window); Held says what it would be.
	ReasonMaintenanceWindow ReasonKind = "maintenance_window"
	// ReasonLifetimeEnded is the reason of the deletion of an object of an instance whose
	// lifetime ended (render.Output.Lifetime), such as an expired trial shoot.
	ReasonLifetimeEnded ReasonKind = "lifetime_ended"
	// ReasonOperationDone is the reason of an update whose only change is the removal of a
	// one-shot operation annotation the plan carries out (render.Object.Consume), such as
	// gardener.cloud/operation=reconcile on a Shoot whose held changes roll out now.
	ReasonOperationDone ReasonKind = "operation_done"
	// ReasonSuperseded is the reason of the deletion of an object its component replaced by a
	// new version under another name (render.Object.Supersedes), the parameter;
	// Summary.Superseded counts them.
	ReasonSuperseded ReasonKind = "superseded"
	// ReasonReleased is the reason of an update that releases an object the landscape applied
	// before to the Gardener controller that owns it now, the parameter (a controller named by
	// the component, render.Handover, or the Gardener object that controls it, as Kind/name):
	// nothing renders it any more, and instead of deleting it apply removes only the engine's
	// label and annotations (inventory.UnmarkPatch) and forgets it in the state.
	// Summary.Released counts them.
	ReasonReleased ReasonKind = "released"
	// ReasonRequested is the reason of the deletion of an object whose owner asked for it, the
	// parameter (render.Output.Requested): a user deleted their Shoot through the API, and the
	// seed deletes its control plane. Summary.Requested counts them.
	ReasonRequested ReasonKind = "requested"
	// ReasonMoved is the reason of an update whose only change is the component annotation of
	// an object whose component moved (a moved block, `gardener state mv`); the parameter is the
	// address it moved from.
	ReasonMoved ReasonKind = "moved"
	// ReasonImport is the reason of an update that adopts an existing object an import block
	// names (its ID the parameter): the landscape takes it over, with the fields other field
	// managers own and, for a generated Secret, its key material.
	ReasonImport ReasonKind = "import"
)

// Reason says why an object changes: its kind and, for immutable_field, conflict and
// superseded, a parameter. Its JSON form is the text "<kind>" or "<kind>:<parameter>".
type Reason struct {
	Kind ReasonKind
	// Detail is the parameter: the immutable field's path, the other field manager, the name of
	// the object that supersedes this one; empty for the other kinds.
	Detail string
}

// String is the reason's JSON form, "<kind>" or "<kind>:<parameter>".
func (r Reason) String() string {
	if r.Detail == "" {
		return string(r.Kind)
	}
	return string(r.Kind) + ":" + r.Detail
}

// IsZero reports whether there is no reason, as for a no-op.
func (r Reason) IsZero() bool { return r == Reason{} }

// MarshalText writes the reason's JSON form.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads the reason's JSON form; kinds have no colon, parameters may.
func (r *Reason) UnmarshalText(text []byte) error {
	kind, detail, _ := strings.Cut(string(text), ":")
	*r = Reason{Kind: ReasonKind(kind), Detail: detail}
	return nil
}

// NoteKind says what a component's note is about, for the code that acts on it
// (Component.Removed); the plan's JSON form has the note's words only (notes.go).
type NoteKind uint8

// The kinds of notes.
const (
	// NoteText is a note in the rendering's own words (render.Component.Note).
	NoteText NoteKind = iota
	// NoteRemoved marks a component whose block is no longer in the landscape.
	NoteRemoved
	// NoteLifetimeEnded marks a part of an instance whose lifetime ended (Plan.Retired).
	NoteLifetimeEnded
	// NoteRetired marks an instance whose lifetime ended: its objects or parts are deleted.
	NoteRetired
	// NoteDeferred marks a component rendered during apply (Action Read).
	NoteDeferred
	// NoteUnrendered marks a component of a type this version of gardener cannot render.
	NoteUnrendered
	// NoteGenerated says what the generator step did with a generated secret: created,
	// renewed, rotated or regenerated it.
	NoteGenerated
	// NoteHeld counts the changes held until the component's maintenance window.
	NoteHeld
)

// Note explains a component-level condition in words. Its JSON form is the words alone; a note
// read back gets its kind from them (ParseNote).
type Note struct {
	Kind NoteKind
	Text string
}

// String is the note's words.
func (n Note) String() string { return n.Text }

// IsZero reports whether there is no note.
func (n Note) IsZero() bool { return n.Text == "" }

// MarshalText writes the note's words.
func (n Note) MarshalText() ([]byte, error) { return []byte(n.Text), nil }

// UnmarshalText reads a note's words and their kind.
func (n *Note) UnmarshalText(text []byte) error {
	*n = ParseNote(string(text))
	return nil
}

// Plan is the result of planning a landscape.
type Plan struct {
	FormatVersion string `json:"format_version"`
	// Landscape is the landscape's name, also the value of its inventory label.
	Landscape string `json:"landscape"`
	// Destroy is set for plans that delete everything the landscape owns.
	Destroy bool `json:"destroy,omitempty"`
	// Targets are the --target addresses the plan is limited to.
	Targets []string `json:"targets,omitempty"`
	// ServerDryRun is set when changed objects were checked with server-side dry-runs.
	ServerDryRun bool `json:"server_dry_run,omitempty"`
	// Rotate are the generated secret classes the plan regenerates (--rotate).
	Rotate []string `json:"rotate,omitempty"`
	// StateSerial is the serial of the state the plan was computed from; applying a saved plan
	// refuses a state that was written since.
	StateSerial int64 `json:"state_serial,omitempty"`
	// PruneWithoutState is set when the plan may delete although the state records nothing
	// (--prune-without-state); applying a saved plan plans again with it.
	PruneWithoutState bool `json:"prune_without_state,omitempty"`
	// AdoptLineage is the lineage an empty (lost) state continues (--adopt-lineage); applying a
	// saved plan plans again with it.
	AdoptLineage string `json:"adopt_lineage,omitempty"`
	// StrictConflicts is set when people's changes stay conflicts (--strict-conflicts or the
	// landscape's strict_conflicts): apply takes them back only with --force-conflicts. Applying
	// a saved plan plans again with it.
	StrictConflicts bool `json:"strict_conflicts,omitempty"`
	// Components are in graph order; components whose objects are all unchanged are included
	// with action no-op.
	Components []*Component `json:"components"`
	Summary    Summary      `json:"summary"`
	// Outputs are the landscape's outputs as far as they are known before apply.
	Outputs []Output `json:"outputs,omitempty"`
	// Warnings are things the plan left alone or could not plan, which a reviewer should know.
	Warnings []string `json:"warnings,omitempty"`
	// Notices are what the landscape will do later by time alone or could not do, besides this
	// plan's changes: what the next maintenance window will update, a failed maintenance.
	Notices []string `json:"notices,omitempty"`
	// Retired are the instances whose lifetime ended: the plan deletes what they applied, and
	// apply records them in the state so that later plans do not create them again while their
	// blocks stay.
	Retired []Retirement `json:"retired,omitempty"`
	// Forget are instances the state records as retired whose blocks are gone or that have no
	// lifetime any more: apply drops the records, so that the instance is created anew.
	Forget []string `json:"forget,omitempty"`
	// Predictions are what Gardener's own controllers will do to the landscape's objects, which
	// the engine leaves to them (render.Prediction): shown, never applied, and no change of the
	// plan's own.
	Predictions []Prediction `json:"predictions,omitempty"`
	// IndirectDeletions are what other controllers delete because of the plan's changes
	// (indirect.go): objects dropped from a ManagedResource, the machines of a removed worker
	// pool. They are deletions a reviewer must see, although the plan deletes nothing itself.
	IndirectDeletions []IndirectDeletion `json:"indirect_deletions,omitempty"`
	// Moved are the state's records that moved blocks send to another address, sorted by the
	// old address: apply records them at the new one, and the objects they own are neither
	// deleted nor created again.
	Moved []Move `json:"moved,omitempty"`
}

// Move is a component instance (or a part of one) the state records at From and the landscape
// declares at To (a moved block).
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Prediction is the plan's form of a render.Prediction, with the instance that made it.
type Prediction struct {
	// Address is the instance whose rendering predicted it.
	Address    string     `json:"address"`
	Actor      string     `json:"actor"`
	Controller string     `json:"controller,omitempty"`
	Cluster    string     `json:"cluster"`
	Ref        object.Ref `json:"ref"`
	Action     string     `json:"action"`
	// At and Until are RFC 3339 times; At is absent when the controller acts as soon as it
	// reconciles the object, Until when the time is exact.
	At          string `json:"at,omitempty"`
	Until       string `json:"until,omitempty"`
	Description string `json:"description"`
}

// Retirement is an instance whose lifetime ended: the plan's form of a rendering.Retirement,
// which has the same fields.
type Retirement struct {
	Address string `json:"address"`
	// Ended is when the lifetime ended, RFC 3339.
	Ended  string `json:"ended"`
	Reason string `json:"reason"`
	// EndedBy names the Gardener controller that deletes what the instance applied
	// (render.Lifetime.EndedBy); the plan releases those objects to it instead of deleting them.
	EndedBy string `json:"ended_by,omitempty"`
	// Recorded is set when the state records the retirement already; a plan with a retirement
	// it does not has changes, even if nothing of the instance is left to delete.
	Recorded bool `json:"recorded,omitempty"`
}

// Component is the plan of one component instance.
type Component struct {
	// Address is the instance address, e.g. `shoot.local["dev"]`.
	Address string `json:"address"`
	// Type is the component type ("manifests") or composite kind ("seed").
	Type string `json:"type"`
	// Action summarises the objects' actions: no-op when none changes, the single action when
	// all changes agree, update otherwise; Read for components rendered during apply.
	Action Action `json:"action"`
	// DependsOn are the addresses of the components this one is applied after.
	DependsOn []string `json:"depends_on,omitempty"`
	// MovedFrom is the address the state recorded the component at before a moved block moved
	// it.
	MovedFrom string `json:"moved_from,omitempty"`
	// Note explains a component-level condition (why it is rendered during apply, why it has
	// no objects yet).
	Note    Note            `json:"note,omitzero"`
	Objects []*ObjectChange `json:"objects"`
}

// ObjectChange is the plan of one object.
type ObjectChange struct {
	// Cluster is the name of the cluster block the object lives in.
	Cluster    string     `json:"cluster"`
	APIVersion string     `json:"api_version"`
	Ref        object.Ref `json:"ref"`
	Action     Action     `json:"action"`
	// Reason says why: missing, config_changed, drift, immutable_field:<path>,
	// removed_from_landscape, conflict:<manager>, adopt, destroy, ...; for a no-op none, or
	// created_once for a create-only object that is gone and is not created again, or
	// maintenance_window for a change held back.
	Reason Reason `json:"reason,omitzero"`
	// Changes are the field changes of an update or replace, sorted by path. For a create they
	// list every field the object sets.
	Changes []FieldChange `json:"changes,omitempty"`
	// Conflicts are fields other managers own that this plan sets differently; applying them
	// needs --force-conflicts.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Drift are the fields of an object the landscape owns that people changed (kubectl's field
	// managers, People), each with the manager that owns it now: apply takes them back without
	// --force-conflicts. Empty when conflicts are strict (Plan.StrictConflicts), where they are
	// Conflicts, and when a controller's field conflicts in the same object: then all are.
	Drift []Conflict `json:"drift,omitempty"`
	// ResourceVersion is the live object's resourceVersion when it was observed; apply of a saved
	// plan refuses to go on when it moved. Empty for create-only objects that are not created:
	// their plan does not depend on the live object, which their consumer may change or delete.
	ResourceVersion string `json:"resource_version,omitempty"`
	// Held is the action a change held back until its maintenance window would take (Action is
	// then no-op and Reason maintenance_window); Changes still list what it would change.
	Held Action `json:"held,omitempty"`
	// OwnerReferences are the owner references a release adds (render.Handover.OwnerReferences):
	// the owner the Gardener controller that owns the object now needs.
	OwnerReferences []metav1.OwnerReference `json:"owner_references,omitempty"`
	// shown is Ref as the plan shows it, when a sensitive value hides part of it (Shown).
	shown *object.Ref
}

// Shown is the object's reference as plans, saved plans and messages show it: a name or namespace
// that depends on a sensitive value is hidden ("(sensitive value)", or only the part that
// depends on it). Ref is the object's real identity, which apply works with and nothing prints.
func (o *ObjectChange) Shown() object.Ref {
	if o.shown != nil {
		return *o.shown
	}
	return o.Ref
}

// showAs sets the reference the plan shows, when it differs from Ref.
func (o *ObjectChange) showAs(ref object.Ref) {
	if ref != o.Ref {
		o.shown = &ref
	} else {
		o.shown = nil
	}
}

// MarshalJSON writes the change with its shown reference as "ref": plans and saved plans never
// hold a hidden name. A saved plan read back has the shown reference as its Ref.
func (o ObjectChange) MarshalJSON() ([]byte, error) {
	type plain ObjectChange // without this method
	p := plain(o)
	p.Ref = o.Shown()
	return json.Marshal(p)
}

// FieldChange is one field's change, redacted: Before and After never hold a secret.
type FieldChange struct {
	Path string `json:"path"`
	// Before and After are JSON values; absent means the field is added or removed.
	Before any `json:"before,omitempty"`
	After  any `json:"after,omitempty"`
	// HasBefore and HasAfter tell an absent field from a null one.
	HasBefore bool `json:"has_before"`
	HasAfter  bool `json:"has_after"`
	// Sensitive means the values are secret and were removed; only that they change is known.
	Sensitive bool `json:"sensitive,omitempty"`
	// Unknown means the new value is known only after apply.
	Unknown bool `json:"unknown,omitempty"`
}

// Conflict is a field another field manager owns that the plan sets to a different value: a
// conflict, or drift when the manager is a person's.
type Conflict struct {
	Path    string `json:"path"`
	Manager string `json:"manager"`
}

// Summary counts object actions.
type Summary struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Replace int `json:"replace"`
	Destroy int `json:"destroy"`
	// Superseded counts the deletions (included in Destroy) of objects replaced by a new
	// version under another name (ReasonSuperseded).
	Superseded int `json:"superseded,omitempty"`
	// Requested counts the deletions (included in Destroy) their objects' owner asked for
	// (ReasonRequested).
	Requested int `json:"requested,omitempty"`
	// Released counts the updates (included in Change) that release objects to a Gardener
	// controller (ReasonReleased).
	Released int `json:"released,omitempty"`
	// Imported counts the updates (included in Change) that adopt existing objects import
	// blocks name (ReasonImport).
	Imported int `json:"imported,omitempty"`
	// Deferred counts components rendered during apply.
	Deferred int `json:"deferred,omitempty"`
	// Held counts object changes held back until their maintenance window; they are not
	// changes of this plan.
	Held int `json:"held,omitempty"`
}

// Output is one landscape output.
type Output struct {
	Name      string `json:"name"`
	Value     any    `json:"value,omitempty"`
	Sensitive bool   `json:"sensitive,omitempty"`
	Unknown   bool   `json:"unknown,omitempty"`
}

// HasChanges reports whether applying the plan would change anything.
func (p *Plan) HasChanges() bool {
	s := p.Summary
	if s.Add+s.Change+s.Replace+s.Destroy+s.Deferred > 0 || len(p.Forget) > 0 || len(p.Moved) > 0 {
		return true
	}
	if p.AdoptLineage != "" && p.StateSerial == 0 {
		return true // the empty state is to record the lineage and the objects of it
	}
	for _, r := range p.Retired {
		if !r.Recorded {
			return true
		}
	}
	return false
}

// Summarise counts the actions and sets each component's action.
func (p *Plan) Summarise() {
	p.Summary = Summary{}
	for _, c := range p.Components {
		if c.Action == Read {
			p.Summary.Deferred++
			continue
		}
		c.Action = NoOp
		for _, o := range c.Objects {
			if o.Held != "" {
				p.Summary.Held++
			}
			switch o.Action {
			case Create:
				p.Summary.Add++
			case Update:
				p.Summary.Change++
				switch o.Reason.Kind {
				case ReasonReleased:
					p.Summary.Released++
				case ReasonImport:
					p.Summary.Imported++
				}
			case Replace:
				p.Summary.Replace++
			case Delete:
				p.Summary.Destroy++
				switch o.Reason.Kind {
				case ReasonSuperseded:
					p.Summary.Superseded++
				case ReasonRequested:
					p.Summary.Requested++
				}
			}
			if o.Action == NoOp {
				continue
			}
			switch c.Action {
			case NoOp:
				c.Action = o.Action
			case o.Action:
			default:
				c.Action = Update
			}
		}
	}
}
