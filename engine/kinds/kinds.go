// Package kinds is the engine's table of per-kind rules: for each Kubernetes and Gardener kind
// the engine treats in a way of its own, where it goes in apply order, whether it lives in a
// namespace, whether deleting it needs --allow-destroy, whether a plan may replace it at all,
// whether Gardener wants its deletion confirmed, which fields the API server refuses to change
// and which rule judges its readiness. The rules of a kind sit together so that adding or
// reviewing a kind is one entry in the file of its API group (core.go for the core group,
// apps.go, gardener_core.go for core.gardener.cloud, ...), not a search through the packages
// that act on them.
//
// The table is data. The packages that act on it read it: engine/plan and engine/apply (apply
// order, protection, replacement, deletion confirmation), engine/planner and the helm_release
// component (scope before discovery), engine/diff (immutable fields) and engine/readiness, which
// keeps the readiness functions and looks up the one the table names (Readiness). So kinds
// imports nothing of the engine but the object model (engine/object), and every package may
// import it without a cycle.
//
// A kind without an entry gets the defaults: namespaced, applied after workloads and before
// APIServices and webhooks, deleted and replaced like any object, ready once it exists and its
// status has observed its generation. Every kind the component catalog renders has an entry
// (tests/catalog checks), so that its rules are a decision, not an accident.
package kinds

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
)

// Group is one API group and the rules of its kinds.
type Group struct {
	// Name is the API group, "" for the core group.
	Name string
	// Builtin is true for the groups Kubernetes serves itself (kube-apiserver and its aggregator),
	// whose scopes are known before any cluster is asked.
	Builtin bool
	// Readiness judges the group's kinds that name no rule of their own; empty means
	// ObservedGeneration.
	Readiness Readiness
	// Kinds are the rules of the group's kinds, in any order.
	Kinds []Rules
}

// Rules are the engine's rules for one kind. The zero value is the default of a kind without an
// entry.
type Rules struct {
	// Kind is the kind's name ("Deployment").
	Kind string
	// Scope says whether objects of the kind live in a namespace.
	Scope Scope
	// Apply is the kind's place in apply order.
	Apply Phase
	// Protected reports whether deleting or replacing an object of the kind, by its name, needs
	// --allow-destroy (design section 5: losing it loses data or whole control planes); nil
	// means never.
	Protected func(name string) bool
	// Irreplaceable is set for kinds a plan never replaces, even when an immutable field
	// changes: deleting the object would destroy what it stands for.
	Irreplaceable *Irreplaceable
	// ConfirmDeletion is true for the kinds Gardener deletes only once the object carries
	// DeletionConfirmation=true.
	ConfirmDeletion bool
	// Immutable are the fields the API server refuses to change once the object exists.
	Immutable []ImmutableField
	// Readiness names the rule engine/readiness judges the kind by; empty means the group's.
	Readiness Readiness
	// SecretData is set for kinds whose data and stringData hold secret values (a Secret,
	// Gardener's InternalSecret): plans never show them, saved plans redact them, and only such
	// objects may carry the private keys of generated secrets (besides a generated token in the
	// HTTP headers of a workload's probes, engine/rendering).
	SecretData bool
	// ReportFinalizer is the finalizer gardenlet keeps on objects of the kind it reports on, which
	// the engine keeps in its place (engine/report): added before its first status write,
	// removed once the object's deletion is done.
	ReportFinalizer string
}

// Scope says whether objects of a kind live in a namespace.
type Scope int

const (
	// Namespaced kinds live in a namespace; kinds of unknown scope count as namespaced until
	// discovery says otherwise.
	Namespaced Scope = iota
	// Cluster kinds have no namespace.
	Cluster
)

// Phase is a step of apply order: definitions and namespaces before what lives in them,
// identities and permissions before the workloads that use them, configuration before its
// consumers, workloads before the webhooks that could otherwise block them. Deletion runs in the
// opposite order.
type Phase int

// The phases; applyOrder orders them.
const (
	// Others is the phase of kinds that name none, custom resources included: after the
	// workloads and their policies, before APIServices and webhooks.
	Others Phase = iota

	Definitions      // CustomResourceDefinitions
	Namespaces       // Namespaces
	Classes          // PriorityClasses, StorageClasses
	Quotas           // ResourceQuotas, LimitRanges
	Identities       // ServiceAccounts
	Roles            // Roles, ClusterRoles
	RoleBindings     // RoleBindings, ClusterRoleBindings
	Configuration    // Secrets, ConfigMaps
	Volumes          // PersistentVolumeClaims
	Services         // Services
	Workloads        // Deployments, StatefulSets, DaemonSets, Jobs, CronJobs
	WorkloadPolicies // PodDisruptionBudgets, HorizontalPodAutoscalers
	APIServices      // APIServices
	Webhooks         // admission webhook configurations
)

// applyOrder is the order of the phases.
var applyOrder = []Phase{
	Definitions, Namespaces, Classes, Quotas, Identities, Roles, RoleBindings, Configuration,
	Volumes, Services, Workloads, WorkloadPolicies, Others, APIServices, Webhooks,
}

// Irreplaceable says why a plan must not replace an object of a kind, for the error that refuses
// a change of its immutable fields: Gardener refuses the change itself, and the new object would
// be a different one, not the old one with a new value.
type Irreplaceable struct {
	// Loses is what deleting the object deletes, after "replacing the <Kind> would".
	Loses string
	// Instead is the way to get the new value, after "restore the old value or"; empty when
	// restoring is the only way.
	Instead string
}

// DeletionConfirmation is the annotation Gardener requires, set to "true", before it deletes an
// object of a kind with ConfirmDeletion (ConfirmationDeletion in
// pkg/apis/core/v1beta1/constants/types_constants.go in gardener/gardener at v1.120.0).
const DeletionConfirmation = "confirmation.gardener.cloud/deletion"

// ImmutableField is a field the API server refuses to change once an object exists: its update
// validation answers "field is immutable" (or "Forbidden: updates to ... are forbidden"). The
// Kubernetes API conventions allow such fields to be set only at creation; changing one means
// deleting and re-creating the object, which a plan shows as a replace (or refuses, for
// Irreplaceable kinds).
//
// The built-in kinds' come from the update validation of each API group
// (kubernetes/pkg/apis/*/validation); engine/diff adds the fields a CustomResourceDefinition's
// schema marks with self == oldSelf transition rules. Gardener's come from its API reference
// (docs/api-reference/ in gardener/gardener; each field names the type it belongs to):
// gardener-apiserver and gardener-operator enforce them in their update validation, not with CEL
// transition rules, so no schema announces them, and the local control plane's stand-in CRDs do
// not enforce them at all: only this table knows them.
type ImmutableField struct {
	// Path is the field; "[*]" matches any item or map value, "[n]" item n of an atomic list.
	Path string
	// Except lists sub-fields of Path that stay mutable.
	Except []string
	// When restricts the rule; the zero value applies always.
	When Condition
}

// Condition decides whether an immutable field's rule applies, from the values at its path
// before and after the apply and the live object. engine/diff evaluates it.
type Condition int

const (
	// Always refuses any change, adding and removing the field included (the server compares
	// old and new as a whole).
	Always Condition = iota
	// WasSet applies when the field had a non-empty value before: it may be added, but never
	// changed or removed.
	WasSet
	// BothSet applies when the field has a non-empty value before and after: a field the
	// server fills in when it is unset (a default, an allocated address, a generated name), or
	// one the reference calls immutable "once set". Only a change from one value to another is
	// certain to be refused there.
	BothSet
	// LiveImmutable applies when the live object is marked immutable (ConfigMap, Secret).
	LiveImmutable
	// LiveEstablished applies when the live CustomResourceDefinition reports Established=True:
	// its scope and kind are refused only then (before, nothing is stored under them yet).
	LiveEstablished
)

// Readiness names a readiness rule of engine/readiness, which holds the functions: the table
// says which rule judges a kind, the readiness package how.
type Readiness string

// The readiness rules.
const (
	// ObservedGeneration: present, and status.observedGeneration (when reported) not behind
	// metadata.generation. The rule of every kind that names none.
	ObservedGeneration Readiness = "observed-generation"

	CRDEstablished      Readiness = "crd-established"
	APIServiceAvailable Readiness = "apiservice-available"
	ServiceReady        Readiness = "service"
	PVCBound            Readiness = "pvc-bound"
	NamespaceActive     Readiness = "namespace-active"
	PodReady            Readiness = "pod"
	DeploymentRollout   Readiness = "deployment-rollout"
	StatefulSetRollout  Readiness = "statefulset-rollout"
	DaemonSetRollout    Readiness = "daemonset-rollout"
	JobComplete         Readiness = "job-complete"

	EtcdReady              Readiness = "etcd"
	ManagedResourceHealthy Readiness = "managedresource-healthy"
	// ExtensionSucceeded: an extension resource's last operation Succeeded for its generation.
	ExtensionSucceeded Readiness = "extension-succeeded"

	SeedReady                   Readiness = "seed"
	ShootReady                  Readiness = "shoot"
	GardenReady                 Readiness = "garden"
	ControllerInstallationReady Readiness = "controllerinstallation"
	ProjectReady                Readiness = "project"
	// LastOperationSucceeded: Gardener's last operation Succeeded, without conditions
	// (BackupBucket, BackupEntry).
	LastOperationSucceeded Readiness = "last-operation-succeeded"
	ManagedSeedReady       Readiness = "managedseed"
	BastionReady           Readiness = "bastion"
)

// groups is the table, one Group per API group, each in the file named after it.
var groups = []Group{
	core, admissionregistration, apiextensions, apiregistration, apps, autoscaling, batch,
	certificates, discovery, flowcontrol, internalAPIServer, networking, node, policy, rbac,
	resource, scheduling, storage, storageMigration,
	gardenerCore, gardenerExtensions, gardenerOperations, gardenerOperator, gardenerResources,
	gardenerSecurity, gardenerSeedManagement, druid,
	monitoring, istioNetworking, verticalPodAutoscaling,
}

// entry is one kind's rules with its group's.
type entry struct {
	group *Group
	rules Rules
}

var (
	byKind  = map[schema.GroupKind]entry{}
	byGroup = map[string]*Group{}
)

func init() {
	for i := range groups {
		g := &groups[i]
		if byGroup[g.Name] != nil {
			panic(fmt.Sprintf("kinds: group %q twice in the table", g.Name))
		}
		byGroup[g.Name] = g
		for _, r := range g.Kinds {
			gk := schema.GroupKind{Group: g.Name, Kind: r.Kind}
			if _, dup := byKind[gk]; dup {
				panic(fmt.Sprintf("kinds: %s twice in the table", gk))
			}
			byKind[gk] = entry{group: g, rules: r}
		}
	}
}

// Groups returns the table, for the packages that derive their own index from it (engine/diff's
// immutable fields) and for tests. The groups must not be changed.
func Groups() []Group { return groups }

// Lookup returns the rules of a kind; ok is false for a kind without an entry, whose rules are
// the zero Rules.
func Lookup(gk schema.GroupKind) (Rules, bool) {
	e, ok := byKind[gk]
	return e.rules, ok
}

// KnownGroup reports whether the table has an entry for the API group.
func KnownGroup(group string) bool { return byGroup[group] != nil }

// ApplyRank is the position of a kind in apply order; lower goes first.
func ApplyRank(gk schema.GroupKind) int {
	r, _ := Lookup(gk)
	return slices.Index(applyOrder, r.Apply)
}

// Protected reports whether deleting or replacing an object needs --allow-destroy.
func Protected(ref object.Ref) bool {
	r, _ := Lookup(ref.GroupKind())
	return r.Protected != nil && r.Protected(ref.Name)
}

// ClusterScoped reports whether the table knows the kind to have no namespace: the built-in
// kinds and Gardener's. Before discovery these are the only kinds the engine treats as
// cluster-scoped.
func ClusterScoped(gk schema.GroupKind) bool {
	r, _ := Lookup(gk)
	return r.Scope == Cluster
}

// BuiltinClusterScoped reports whether gk is a built-in Kubernetes kind without a namespace.
// Renderers and the graph need the scope before any cluster is asked (discovery knows it
// exactly); custom kinds are not covered.
func BuiltinClusterScoped(gk schema.GroupKind) bool {
	e, ok := byKind[gk]
	return ok && e.group.Builtin && e.rules.Scope == Cluster
}

// ReadinessOf returns the readiness rule of a kind: its own, else its group's, else
// ObservedGeneration.
func ReadinessOf(gk schema.GroupKind) Readiness {
	if e, ok := byKind[gk]; ok && e.rules.Readiness != "" {
		return e.rules.Readiness
	}
	if g := byGroup[gk.Group]; g != nil && g.Readiness != "" {
		return g.Readiness
	}
	return ObservedGeneration
}

// always is Rules.Protected of the kinds that are always protected.
// HoldsSecretData reports whether objects of a kind keep secret values in data and stringData.
func HoldsSecretData(gk schema.GroupKind) bool {
	r, _ := Lookup(gk)
	return r.SecretData
}

// HoldsSecretDataOf is HoldsSecretData for an object's apiVersion and kind.
func HoldsSecretDataOf(apiVersion, kind string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && HoldsSecretData(gv.WithKind(kind).GroupKind())
}

// ReportFinalizer is the finalizer the engine keeps on the objects of a kind it reports on, ""
// for kinds it does not report on.
func ReportFinalizer(gk schema.GroupKind) string {
	r, _ := Lookup(gk)
	return r.ReportFinalizer
}

func always(string) bool { return true }
