// Package render is the contract between the engine and the component types: a component type
// is a pure Func from an Input (an instance's configuration, the evaluation time, the live
// objects it may read) to an Output (Kubernetes objects, or a composite's parts as Components,
// with outputs and notices), registered in a Registry. The engine never imports the component
// packages: cmd wires the Registry in, and engine/rendering calls its functions.
//
// The package also holds what components and the engine agree on about rendered values: the
// markers of values known only after apply (UnknownString, LiveValue, GeneratedRef), whose
// fields plans show as "(known after apply)" instead of a guess, and the Redactor that keeps
// secrets out of plans.
package render

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

// Func renders one instance of a component type. It must be pure: no cluster access, no clock,
// no randomness, so that two plans of the same landscape render the same objects. What a
// rendering may depend on besides the configuration reaches it explicitly through its Input:
// the evaluation time (Now) and live objects it asks for (Observe), which a plan records.
type Func func(in Input) (*Output, error)

// Registry maps component types (schema types such as "manifests") and composite kinds
// ("garden", "seed", "shoot") to their render functions.
type Registry map[string]Func

// Input is what a render function receives.
type Input struct {
	// Landscape is the landscape's name.
	Landscape string
	// Address is the instance address ("component.manifests.base", `shoot.dev["a"]`).
	Address string
	// Name is the instance's object name (the block name, "-<key>" for expanded blocks).
	Name string
	// Dir is the landscape directory; relative file paths in configurations resolve against it.
	Dir string
	// Paths reads the files a configuration names (charts, manifests) under the operator's
	// policy: regular files of bounded size, and only inside Dir in confined mode. Read them
	// through Files, never with os directly.
	Paths *landscapefs.Dir
	// Config is the decoded configuration without sensitive marks. Unknown strings are
	// replaced by UnknownString; other unknown values never reach a render function.
	Config cty.Value
	// Now is the time the landscape is evaluated at: the clock of the run (the daemon's cycle),
	// or what `plan --at` asks about. Behaviour that depends on time (hibernation schedules)
	// reads it here and nowhere else, so that golden plans at a fixed time stay the same.
	Now time.Time
	// ObservedAt is when the live objects were read, when that is before Now: `plan --at` a
	// later time. What Gardener's controllers did before it the live objects show; what they
	// will do after it and up to Now a render function predicts (render.Output.Predictions) and
	// renders what follows from it on the engine's side as done (a control plane hibernated
	// because gardener-controller-manager will have flipped the Shoot by Now). Zero means Now:
	// a plan, an apply or a daemon cycle renders from the live objects as they are. Read it
	// through Observation.
	ObservedAt time.Time
	// Observe reads a live object (Paths are ignored): nil when it does not exist, or when the
	// run has no clusters to read (graph, validate). Behaviour that depends on what happened
	// to an object (a shoot that failed, a schedule trigger already carried out) reads it here.
	Observe func(ref LiveRef) (*unstructured.Unstructured, error)
	// List reads the live objects of a resource: what a Gardener controller decides from "a
	// live list" (the shoots on a seed, the shoots of a project) rather than from one object.
	// Empty when the resource is not served or the run has no clusters to read.
	List func(ref ListRef) ([]unstructured.Unstructured, error)
}

// Files reads the files a configuration names: through Paths, or Dir read unconfined when Paths
// is not set (a test that renders a component by itself).
func (in Input) Files() *landscapefs.Dir {
	if in.Paths != nil {
		return in.Paths
	}
	return landscapefs.New(in.Dir, landscapefs.Policy{})
}

// ListRef names the live objects a render function lists.
type ListRef struct {
	// Cluster is the cluster block the objects live in.
	Cluster string
	// Group, Version and Resource are the objects' resource ("core.gardener.cloud", "v1beta1",
	// "shoots").
	Group    string
	Version  string
	Resource string
	// Namespace is empty for all namespaces (or a cluster-scoped resource).
	Namespace string
	// LabelSelector selects the objects by label ("gardener.cloud/role"); empty selects all.
	LabelSelector string
}

// GVR is the objects' resource.
func (r ListRef) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// Key identifies the list, for caches.
func (r ListRef) Key() string {
	return strings.Join([]string{r.Cluster, r.Group, r.Version, r.Resource, r.Namespace, r.LabelSelector}, "/")
}

// Listed reads ref through in.List; nil when there is nothing to read with.
func (in Input) Listed(ref ListRef) ([]unstructured.Unstructured, error) {
	if in.List == nil {
		return nil, nil
	}
	return in.List(ref)
}

// Observation is the time the live objects show: ObservedAt, or Now when that is zero or later
// than Now.
func (in Input) Observation() time.Time {
	if in.ObservedAt.IsZero() || in.ObservedAt.After(in.Now) {
		return in.Now
	}
	return in.ObservedAt
}

// Observed reads ref through in.Observe; nil when there is nothing to read it with.
func (in Input) Observed(ref LiveRef) (*unstructured.Unstructured, error) {
	if in.Observe == nil {
		return nil, nil
	}
	return in.Observe(ref)
}

// Output is what a render function returns.
type Output struct {
	// Objects are the Kubernetes objects, each with the cluster it belongs to.
	Objects []Object
	// Outputs are the instance's output values by name; outputs not set are known only after apply.
	Outputs map[string]cty.Value
	// Components are the parts of a composite block (garden, seed, shoot), each planned and
	// applied as a component of its own. Component types render Objects, composites Components.
	Components []Component
	// Revisit is the next time after Input.Now at which the rendering changes by time alone (a
	// hibernation schedule's next trigger); zero when it never does. The daemon plans again then
	// instead of polling.
	Revisit time.Time
	// Notices are what a plan should tell its reader about the instance besides its changes:
	// what the next maintenance window will do, a maintenance that cannot be carried out.
	Notices []string
	// Lifetime, when set, is when the instance's life ends (a shoot under a Quota with a cluster
	// lifetime). From then on the engine renders none of its parts, so that the plan deletes
	// what the instance applied before, and once an apply has begun that deletion the instance is
	// not rendered again while its block stays: a lifetime computed anew (the Shoot is gone)
	// would otherwise create it again.
	Lifetime *Lifetime
	// Conditions are what the instance's live objects say about its health, derived the way a
	// Gardener controller derives a condition it maintains (a seed's ExtensionsReady): reported
	// by the daemon's status, never written, since the landscape's gardener-controller-manager
	// writes them.
	Conditions []Condition
	// Predictions are what Gardener's own controllers (gardener-controller-manager,
	// gardener-scheduler) will do about the instance's objects, which the engine leaves to them:
	// a hibernation schedule's trigger, a maintenance window's version update, a project's
	// namespace. Plans show them marked as theirs; the engine never applies them. What follows
	// from them on the engine's side (a control plane that hibernates because the Shoot will say
	// so) is rendered as usual.
	Predictions []Prediction
	// Reports are what the engine reports about Gardener objects of the instance as gardenlet
	// does for the seeds and shoots it manages: their status, written through the status
	// subresource after apply and kept current by the daemon (engine/report), never planned as a
	// change.
	Reports []Report
	// HandedOver are objects the instance applied in earlier versions of gardener that a
	// Gardener controller owns now (the namespace, RBAC and ResourceQuota of a project, which
	// gardener-controller-manager's project controller keeps). The instance no longer renders
	// them; a live one the state records as the instance's is released instead of deleted:
	// the plan shows it with the reason released:<controller>, and apply forgets it in the state
	// and removes only the engine's label and annotations from it.
	HandedOver []Handover
	// Requested are deletions the owner of an object asked for, not the landscape: a user
	// deleted their Shoot through the API, and the seed no longer renders its control plane.
	// The objects of the removed parts they name are planned for deletion with the reason
	// requested:<why>, which the daemon's approve-destructive policy does not hold for an
	// approval: the deletion is the user's to make.
	Requested []RequestedDeletion
}

// RequestedDeletion names the parts of an instance whose deletion someone other than the
// landscape asked for.
type RequestedDeletion struct {
	// PartPrefix selects the parts by the start of their names.
	PartPrefix string
	// Why says who asked, in the plan's reason: "Shoot garden-dev/a deleted through the API".
	Why string
}

// Report is the status the engine keeps for one object as gardenlet does for the seeds and
// shoots it manages (Gardener's "gardenlet" docs/concepts/gardenlet.md). The object itself is
// someone else's or another part's: a Shoot a user created or the shoot block applies, a Seed the
// seed block registers. The report is written only while the object exists.
type Report struct {
	// Cluster, APIVersion, Kind, Namespace and Name identify the reported object.
	Cluster                           string
	APIVersion, Kind, Namespace, Name string
	// Status are status fields the engine sets on every write besides lastOperation, lastErrors,
	// conditions, observedGeneration and gardener, which it keeps itself (technicalID, seedName,
	// advertisedAddresses, hibernated, kubernetesVersion). Values known only after apply are not
	// allowed: what is not known yet is left out.
	Status map[string]any
	// CopyUID sets status.uid to the object's own metadata.uid, as gardenlet does for Shoots.
	CopyUID bool
	// GardenerVersion is the Gardener release the engine reports as, in status.gardener.version
	// (what Gardener's controllers compare with their own).
	GardenerVersion string
	// Operation, when set, makes the engine keep status.lastOperation as gardenlet does.
	Operation *Operation
	// Conditions are the conditions the engine keeps; others (gardener-controller-manager's) are
	// left as they are.
	Conditions []ReportedCondition
	// Heartbeat, when set, is a Lease the engine renews while it manages the object, owned by it.
	Heartbeat *Heartbeat
	// Parts, when set, are the parts of the instance whose apply is this report's operation;
	// without them every part of the instance is. A seed that deploys the control planes of
	// Shoots users created through the API reports its Seed by its own parts and each Shoot by
	// the Shoot's.
	Parts []string
	// Error, when set, says why the engine cannot serve the object: the report writes
	// lastOperation Error (and lastErrors, for kinds with Operation.LastErrors) with it, as
	// gardenlet reports a Shoot it cannot reconcile, and nothing else.
	Error string
	// Consume names annotations of the live object, with the values the render function read,
	// that the operation carries out (gardener.cloud/operation=reconcile on a Shoot a user
	// created through the API, which gardenlet removes once it reconciles): the writer removes
	// each, if it still has that value, once the operation Succeeded or found nothing to do.
	// For an object the instance renders itself render.Object.Consume does this.
	Consume map[string]string
	// Finalize is set for an object in deletion whose deletion the engine ends as gardenlet ends
	// its delete flow: once the plan deletes none of the parts whose names start with
	// FinalizeAfter any more ("" for none), the engine writes a Delete that Succeeded and removes
	// its finalizer. Only an object whose status the engine reported is finalized.
	Finalize      bool
	FinalizeAfter string
}

// Operation says how gardenlet words the object's lastOperation: Processing when the instance's
// apply starts, the progress and the running parts as its parts finish, Succeeded (or Error)
// when its last part is done.
type Operation struct {
	// Subject is the object in gardenlet's descriptions: "Shoot cluster", "Seed cluster".
	Subject string
	// Flows name the flow of each operation type in progress descriptions: "Shoot cluster
	// reconciliation" for Create and Reconcile, "Shoot cluster deletion" for Delete.
	Flows map[string]string
	// Create is set for kinds whose first operation is a Create (Shoots); others start with a
	// Reconcile (Seeds).
	Create bool
	// LastErrors is set for kinds that report failures in status.lastErrors and fail for good on
	// Gardener's non-retryable error codes (Shoots); others only report Error (Seeds).
	LastErrors bool
}

// ReportedCondition is a condition the engine keeps for a reported object.
type ReportedCondition struct {
	Type string
	// Parts are the instance's parts whose objects' readiness the condition summarises: True
	// with Reason and Message when every one is ready, False with FalseReason and what is not
	// ready otherwise. Without parts the condition is Status with Reason and Message as given
	// (GardenletReady True while the engine manages the seed; Unknown where the engine cannot
	// see what the condition is about).
	Parts       []string
	Status      string
	Reason      string
	Message     string
	FalseReason string
}

// Heartbeat is a Lease the engine renews as gardenlet renews its seed's
// (gardener-system-seed-lease/<seed>): holder and owner are the reported object.
type Heartbeat struct {
	Cluster, Namespace, Name string
	// Duration is the Lease's leaseDurationSeconds.
	Duration time.Duration
}

// Handover names objects an instance once applied that a Gardener controller owns now. A
// composite's handover covers its parts too, also those it no longer renders (a seed's
// seed_namespace part of older versions). A live object it names whose annotations name another
// component, and which the state does not record, is left alone without a warning: its controller
// made it as a copy of that component's object and copied its labels and annotations too
// (gardener-controller-manager's copies of the garden's Secrets in seed-<name>).
type Handover struct {
	// Cluster is the cluster block the objects live in.
	Cluster string
	// Group, Kind and Namespace identify the objects' kind and namespace ("" for cluster-scoped
	// ones).
	Group, Kind, Namespace string
	// Name matches the objects' names.
	Name *regexp.Regexp
	// Controller is the Gardener controller that owns them now, such as
	// gardener-controller-manager.
	Controller string
	// OwnerReferences are added to each object when it is released: the owner its controller
	// needs (gardener-controller-manager syncs a seed's seed-<name> namespace only while the Seed
	// controls it).
	OwnerReferences []metav1.OwnerReference
}

// Prediction is one thing a Gardener controller other than the engine will do to an object.
type Prediction struct {
	// Actor is the controller's binary: gardener-controller-manager or gardener-scheduler.
	Actor string
	// Controller is its loop, as Gardener names it ("shoot-hibernation", "project").
	Controller string
	// Cluster is the cluster block the object lives in.
	Cluster string
	// APIVersion, Kind, Namespace and Name identify the object.
	APIVersion, Kind, Namespace, Name string
	// Action is what happens to the object: create, update or delete.
	Action string
	// At is when it happens; zero means as soon as the controller reconciles the object. Until,
	// when set, ends the interval in which it happens where the controller picks the instant
	// itself (a random time in a maintenance window).
	At, Until time.Time
	// Description says what the controller will do, in its terms.
	Description string
}

// Condition is a derived condition of an instance, shaped like a Kubernetes object condition.
type Condition struct {
	Type    string
	Status  string // "True", "False", "Unknown" or "Progressing" (Gardener's conditions with a threshold)
	Reason  string
	Message string
}

// String is the condition in one line: "ExtensionsReady True (AllExtensionsReady): ...".
func (c Condition) String() string {
	s := c.Type + " " + c.Status
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// Lifetime is the end of an instance's life and what set it.
type Lifetime struct {
	// Ends is when the life ends; zero says no end is known now, but the instance may have
	// ended in an earlier apply (a stale project, deleted, whose staleness cannot be computed
	// any more): only the state's record of that end retires it.
	Ends time.Time
	// Reason names what set the end, such as "the cluster lifetime of Quota garden-dev/trial
	// (7 days)".
	Reason string
	// EndedBy, when set, names the Gardener controller that ends the instance's life by
	// deleting its objects itself (gardener-controller-manager deletes a stale Project). The
	// engine then deletes nothing once the life ended: what the instance applied is released
	// to that controller (reason released:<EndedBy>), and the retirement is recorded all the
	// same, so that the engine does not create what the controller deleted again.
	EndedBy string
}

// Object is a rendered Kubernetes object and the name of the cluster block it is applied to.
type Object struct {
	Cluster string
	Object  *unstructured.Unstructured
	// DefaultNamespace is set on the object when its kind is namespaced and it names no
	// namespace; whether a kind is namespaced is the cluster's knowledge, not the renderer's.
	DefaultNamespace string
	// Consume names annotations of the live object, with the values the render function read,
	// that this rendering carries out: one-shot requests someone else set, such as Gardener's
	// gardener.cloud/operation=reconcile on a Shoot, which are "removed once the triggered
	// operation is considered" (Gardener's "Trigger Shoot Operations Through Annotations"
	// docs/usage/shoot-operations/shoot_operations.md). Server-side apply cannot remove a field
	// another manager owns, so the plan shows their removal and apply removes each after writing the
	// object, if it still has the value read.
	Consume map[string]string
	// Supersedes matches the names of the earlier versions of a versioned object, one that gets
	// a new name with every version (a worker pool's kube-proxy ManagedResource per Kubernetes
	// version). A live object of the same kind, namespace and cluster, applied by the same
	// component or by another part of the same composite (a shoot's bootstrap certificate, which
	// gardener-resource-manager's access Secret supersedes once it holds a token), whose name it
	// matches and which the landscape no longer renders is planned for
	// deletion with the reason superseded, which the daemon's approve-destructive policy does not
	// hold for an approval: it is part of the change that renders this object, not a removal
	// from the landscape. The engine finds them among the objects it lists anyway.
	Supersedes *regexp.Regexp
	// Yield names fields the render function set to the live object's value because a Gardener
	// controller decides them (a Shoot's spec.hibernation.enabled, which gardener-controller-
	// manager flips at a hibernation schedule's trigger): apply never takes them over. When the
	// write conflicts with another field manager, apply reads the object again, takes these
	// fields' current values from it (YieldToLive) and writes again, forcing the other fields as
	// usual: a controller's write between the plan's reading and the apply's writing stays.
	// Paths are dot-separated; a list item is selected by a field's value, as in
	// "spec.provider.workers[name=pool-a].machine.image.version".
	Yield []string
	// Sensitive marks the places of the object that depend on sensitive values, which plans,
	// saved plans and messages never show. A render function sets it where it transforms
	// sensitive values beyond recognition (a Helm chart's templates); the engine adds the places
	// it traces itself (engine/rendering).
	Sensitive *Sensitivity
}

// ErrDeferred is returned (wrapped) by a render function that needs a value known only after
// apply to decide what to render at all (a file name, an object's name): the instance is then
// rendered during apply instead of failing the plan.
var ErrDeferred = errors.New("depends on values known only after apply")

// UnknownString stands in for a string known only after apply. Render functions treat it like
// any other string; fields that contain it are planned as "(known after apply)".
const UnknownString = "${known after apply}"

// ClusterName returns the name of the cluster a `cluster = cluster.x` attribute refers to: the
// evaluated cluster value carries its name.
func ClusterName(config cty.Value, attr string) (string, error) {
	if config.IsNull() || !config.Type().IsObjectType() || !config.Type().HasAttribute(attr) {
		return "", fmt.Errorf("configuration has no %s attribute", attr)
	}
	v := config.GetAttr(attr)
	if v.IsNull() || !v.Type().IsObjectType() || !v.Type().HasAttribute("name") {
		return "", fmt.Errorf("%s is not a cluster reference", attr)
	}
	name := v.GetAttr("name")
	if !name.IsKnown() || name.IsNull() || name.Type() != cty.String {
		return "", fmt.Errorf("%s has no known cluster name", attr)
	}
	return name.AsString(), nil
}

// Types lists the registry's types, sorted.
func (r Registry) Types() []string {
	return slices.Sorted(maps.Keys(r))
}

// Component is one part of a composite block (garden, seed, shoot): the built-in modules
// expand to parts that the engine plans, applies and waits for one by one, in the order their
// DependsOn gives, like components declared on their own. A part's address is the composite
// instance's address followed by "." and its Name (`garden.local.virtual_garden_etcd_main`).
type Component struct {
	// Name is the part's name, an HCL identifier unique within the composite.
	Name string
	// Type is the component type the part is an instance of ("etcd", "kube_apiserver"), shown
	// in plans and state.
	Type string
	// DependsOn names the parts this one is applied after (documented orders, data flow).
	DependsOn []string
	// Detached parts are applied and waited for like the others, but the composite, and what
	// depends on it, does not wait for them: a seed's BackupBucket is reconciled by a backup
	// extension that is installed only once the seed is up.
	Detached bool
	// Window, when set, holds the part's changes back until its daily maintenance window once
	// the part exists: a shoot with .spec.maintenance.confineSpecUpdateRollout rolls out
	// changes of its specification only then (Gardener's "Shoot Maintenance"
	// docs/usage/shoot/shoot_maintenance.md, "gardenlet" docs/concepts/gardenlet.md). A part none of
	// whose objects exists yet is created at once.
	Window *MaintenanceWindow
	// DeletionDependsOn, when set, names the parts this one is deleted before once the
	// composite's block is removed, where that differs from DependsOn: a hibernated shoot
	// scales down in the reverse of its reconcile order, but is deleted in its delete flow's.
	DeletionDependsOn []string
	// Note says why the part renders as it does now where that is not the configuration alone
	// (a hibernation schedule came due); plans show it with the part's changes.
	Note string
	// Objects are the part's objects. Strings in them may hold GeneratedRef markers.
	Objects []Object
	// Secret, when set, makes the part a generated secret: the engine generates (or reuses) it
	// like a generated_secret component, and Objects must be empty.
	Secret *SecretSpec
	// Copy, when set, makes the part a copy of a Secret that exists elsewhere, and Objects must
	// be empty.
	Copy *CopySpec
	// Await, when set, makes the part one whose objects follow an object another controller
	// creates, and Objects must be empty: see Await.
	Await *Await
	// StatusReports are the statuses the engine reports for objects other controllers own,
	// standing in for gardenlet (see StatusReport).
	StatusReports []StatusReport
}

// Await is a part whose objects follow an object another controller creates once what the
// same apply applies exists: gardenlet deploys an extension for a ControllerInstallation, which
// gardener-controller-manager creates (with a generated name) once the Seed, or a Shoot that
// needs the extension, exists. The engine renders such a part with Render when it plans; while
// Render finds the object missing, the part is rendered during apply instead (the plan's action
// render-during-apply): once the instances rendering what After selects are applied, apply calls
// Render again with live reads until it renders the part or the part's readiness timeout
// passes, then applies the objects and waits for them as for any part. One apply thus creates
// the Seed, lets the controller create its object, and deploys what follows it.
type Await struct {
	// For says what the part waits for, in the plan's note ("the ControllerInstallation of
	// provider-local for seed local, which gardener-controller-manager creates").
	For string
	// After selects, among the objects other instances render, those whose existence makes the
	// other controller create the object: it returns why the part comes after the instance
	// rendering obj in cluster, or "" for objects it does not follow. The part is applied after
	// them, and deleted after them too, since the object it follows goes only once they are gone.
	After func(cluster string, obj *unstructured.Unstructured) string
	// Render renders the part from the live objects it reads through in (Observe, List); nil
	// while the object it follows does not exist.
	Render func(in Input) (*Awaited, error)
	// Shapes are the kinds and namespaces of the objects Render will render (objects with only
	// apiVersion, kind and namespace set), for the plan that cannot render them yet: the graph
	// orders the part after what serves them (their CustomResourceDefinitions, their Namespace)
	// as it orders a rendered part, so that applying it once the object exists never meets an
	// unserved kind.
	Shapes []Object
}

// Awaited is what an Await part renders once the object it follows exists.
type Awaited struct {
	Objects       []Object
	StatusReports []StatusReport
}

// StatusReport is a status the engine reports for an object another controller owns, standing
// in for the controller that would report it: gardenlet's conditions of a ControllerInstallation
// whose extension the engine deploys (Valid, Installed, Healthy, Progressing, Required). Plans do
// not show them, since they are not the landscape's changes. Conditions derives them from live
// objects as that controller does (the installation's ManagedResource, the extension resources in
// the seed), so that the engine's status writer (engine/report) can derive them again after apply
// and keep them current: a writer for the Seeds and Shoots the engine manages keeps their
// conditions from the readiness of parts, which cannot say Progressing False or Required.
type StatusReport struct {
	// Cluster is the cluster block the object lives in; APIVersion, Kind, Namespace and Name
	// identify it.
	Cluster                           string
	APIVersion, Kind, Namespace, Name string
	// Conditions derives the object's conditions from what it reads through in (Observe, List).
	Conditions func(in Input) ([]Condition, error)
}

// MaintenanceWindow is a daily time window, written as Gardener's .spec.maintenance.timeWindow
// does: HHMMSS followed by a UTC offset, such as "220000+0100". An End before Begin spans
// midnight.
type MaintenanceWindow struct {
	Begin, End string
	// HoldWhile, when set, decides for the whole composite when the window holds changes: only
	// while every condition holds on the live objects. A shoot holds its changes only once its
	// Shoot exists (a shoot whose creation did not finish goes on being created) and while
	// its hibernation does not change (hibernating and waking up are never held). Without
	// conditions, a part holds its changes once any of its objects exists.
	HoldWhile []LiveCondition
}

// LiveCondition is a field of a live object and the value it must have. The object must exist;
// an absent field counts as Default.
type LiveCondition struct {
	Ref            LiveRef
	Value, Default string
}

// CopySpec asks the engine to copy a Secret into a part's cluster and namespace, the way
// gardenlet copies a shoot's infrastructure credentials from its project into the shoot's
// control-plane namespace as the cloudprovider Secret (Gardener's "Infrastructure"
// docs/extensions/resources/infrastructure.md): render functions cannot read Secrets. The source is
// the Secret a binding refers to, or a named Secret; the engine takes it from what the landscape
// renders (a binding and Secret declared in the same landscape) or else from the live cluster. Its
// data never appears in plans.
type CopySpec struct {
	// Cluster, Namespace and Name are the copy's; Labels are added to it.
	Cluster   string
	Namespace string
	Name      string
	Labels    map[string]string
	// FromCluster is the cluster block the source lives in.
	FromCluster string
	// BindingKind (CredentialsBinding or SecretBinding), BindingNamespace and BindingName name a
	// binding whose referenced Secret is the source; when BindingKind is empty, FromNamespace and
	// FromName name the source Secret directly.
	BindingKind      string
	BindingNamespace string
	BindingName      string
	FromNamespace    string
	FromName         string
	// FromSelector, when set instead of a name, copies every Secret of FromNamespace whose
	// labels match this label selector ("gardener.cloud/role"), each under its own name and with
	// its labels and annotations: Gardener's replication of the garden's shared Secrets into a
	// seed's namespace (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md).
	// Name is then empty.
	FromSelector string
}

// SecretPart is a composite's part that the engine generates as spec says, in cluster and
// namespace, after the parts named in dependsOn (empty names are skipped, so that a certificate's
// optional CA part can be passed as it is).
func SecretPart(name, cluster, namespace string, spec SecretSpec, dependsOn ...string) Component {
	spec.Cluster, spec.Namespace = cluster, namespace
	c := Component{Name: name, Type: "generated_secret", Secret: &spec}
	for _, d := range dependsOn {
		if d != "" {
			c.DependsOn = append(c.DependsOn, d)
		}
	}
	return c
}

// SecretSpec asks the engine to generate a Secret for a composite's part, the way the
// generated_secret component type does: render functions are pure and cannot create or read key
// material.
type SecretSpec struct {
	// Cluster is the cluster block the Secret is created in.
	Cluster   string
	Namespace string
	Name      string
	// Class is one of ca, server-cert, client-cert, rsa-key, token, password, encryption-config,
	// vpn-tlsauth, bootstrap-token.
	Class        string
	CommonName   string
	Organization []string
	DNSNames     []string
	IPAddresses  []string
	// Validity of certificates; zero for the class's default.
	Validity time.Duration
	// KeyAlgorithm of CAs and certificates: "ecdsa-p256" or "rsa"; empty for the default
	// (ECDSA P-256, or RSA when Length is set; rsa-key Secrets are always RSA).
	KeyAlgorithm string
	// Length of tokens and passwords, bits of RSA keys; zero for the class's default.
	Length int
	// CA names the Secret (same cluster and namespace) of the part of class ca that signs this
	// certificate; that part must come earlier in DependsOn.
	CA string
	// Resources are the resources (resource.group) an encryption-config encrypts.
	Resources []string
}

// GeneratedRef is a marker a render function puts into an object where the public part of a
// generated secret belongs (a caBundle, a CA certificate in a kubeconfig): the engine replaces
// it once the secret is generated. key is a key of the Secret's data ("ca.crt", "tls.crt");
// only certificates can be referenced this way, never private keys or tokens. With base64 set,
// the value is base64-encoded, as caBundle fields want it.
func GeneratedRef(namespace, name, key string, base64 bool) string {
	enc := "pem"
	if base64 {
		enc = "base64"
	}
	return generatedPrefix + namespace + "/" + name + "/" + key + ":" + enc + "}"
}

// generatedPrefix starts every GeneratedRef marker.
const generatedPrefix = "${generated:"

// HasGenerated reports whether v (a string, or the maps and lists of an object) holds a
// GeneratedRef marker: its value changes when the engine renews the generated secret, while the
// rendering stays the same.
func HasGenerated(v any) bool { return containsString(v, generatedPrefix) }

// ManagedResourceContentsLabel marks a Secret that holds the objects of a gardener-resource-manager
// ManagedResource, one YAML document per data key. Plans show the objects inside such a Secret one
// by one (Secrets among them still redacted) instead of opaque Secret data.
const ManagedResourceContentsLabel = "declarative-gardener.io/managed-resource-contents"

// CreateOnlyAnnotation, set to "true" on a rendered object, makes the engine create the object
// once and then leave it alone: it is never updated (its live contents may differ from the
// rendering, by design), and once the state records it, it is not created again when something
// else deleted it. The object stays the landscape's (labelled, recorded in the state) and is
// deleted when the landscape stops rendering it. It is for objects handed over to a consumer:
// gardenlet's bootstrap kubeconfig Secret, which gardenlet deletes once its TLS bootstrap is done
// (Gardener's docs/concepts/gardenlet.md, "Deploy Gardenlet Manually"
// docs/deployment/deploy_gardenlet_manually.md). The name says the lifecycle rather than a
// mechanism: unlike "apply if not present" (Flux's IfNotPresent), an object its consumer deleted is
// not brought back.
const CreateOnlyAnnotation = "declarative-gardener.io/create-only"

// HandOver hands every object of parts over to controller, one Handover per object by its
// exact name: an instance that no longer renders parts because a Gardener controller deploys
// them now (a seed handed to gardenlet, whose gardenlet deploys what the engine deployed before
// under the same names) releases them instead of deleting them. An object without a namespace
// that has a DefaultNamespace is handed over under both, since only the cluster knows its scope.
func HandOver(parts []Component, controller string) []Handover {
	var out []Handover
	add := func(cluster, apiVersion, kind, namespace, name string) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil || name == "" || Unknown(name) {
			return
		}
		out = append(out, Handover{Cluster: cluster, Group: gv.Group, Kind: kind, Namespace: namespace,
			Name: regexp.MustCompile("^" + regexp.QuoteMeta(name) + "$"), Controller: controller})
	}
	for _, p := range parts {
		for _, o := range p.Objects {
			u := o.Object
			add(o.Cluster, u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
			if u.GetNamespace() == "" && o.DefaultNamespace != "" {
				add(o.Cluster, u.GetAPIVersion(), u.GetKind(), o.DefaultNamespace, u.GetName())
			}
		}
		if s := p.Secret; s != nil {
			add(s.Cluster, "v1", "Secret", s.Namespace, s.Name)
		}
		if c := p.Copy; c != nil && c.FromSelector == "" {
			add(c.Cluster, "v1", "Secret", c.Namespace, c.Name)
		}
	}
	return out
}
