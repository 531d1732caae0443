package diff

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/declarative-gardener/gardener/engine/openapi"
)

// immutableField is a field the API server refuses to change once an object exists: its update
// validation answers "field is immutable" (or "Forbidden: updates to ... are forbidden"). The
// Kubernetes API conventions allow such fields to be set only at creation; changing one means
// deleting and re-creating the object, which a plan shows as a replace (or refuses, for the
// Gardener kinds whose deletion would destroy a cluster).
type immutableField struct {
	kind schema.GroupKind
	// path is the immutable field; "[*]" matches any item or map value, "[n]" item n of an
	// atomic list.
	path string
	// except lists sub-fields of path that stay mutable.
	except []string
	// when restricts the rule; nil means always.
	when condition
}

// condition decides whether a rule applies, from the values at the rule's path before and after
// the apply and the live object.
type condition func(old, new any, oldOK, newOK bool, live map[string]any) bool

// wasSet applies when the field had a non-empty value before: it may be added, but never
// changed or removed.
func wasSet(old, _ any, oldOK, _ bool, _ map[string]any) bool {
	return oldOK && !isEmptyScalar(old)
}

// bothSet applies when the field has a non-empty value before and after: setting a field the
// server would otherwise allocate (Service clusterIP) or a transition rule, which only runs when
// both values exist.
func bothSet(old, new any, oldOK, newOK bool, _ map[string]any) bool {
	return oldOK && newOK && !isEmptyScalar(old) && !isEmptyScalar(new)
}

// liveImmutable applies when the live object is marked immutable (ConfigMap, Secret).
func liveImmutable(_, _ any, _, _ bool, live map[string]any) bool {
	b, _ := live["immutable"].(bool)
	return b
}

func isEmptyScalar(v any) bool {
	return v == nil || v == ""
}

// immutableFields is the table of built-in immutable fields, from the update validation of each
// API group (kubernetes/pkg/apis/*/validation) as of Kubernetes 1.37. PodDisruptionBudget's
// selector has been mutable since 1.15 and is therefore absent.
var immutableFields = []immutableField{
	{kind: gk("apps", "Deployment"), path: ".spec.selector"},
	{kind: gk("apps", "ReplicaSet"), path: ".spec.selector"},
	{kind: gk("apps", "DaemonSet"), path: ".spec.selector"},
	{kind: gk("apps", "StatefulSet"), path: ".spec.selector"},
	{kind: gk("apps", "StatefulSet"), path: ".spec.serviceName"},
	{kind: gk("apps", "StatefulSet"), path: ".spec.volumeClaimTemplates"},
	{kind: gk("apps", "StatefulSet"), path: ".spec.podManagementPolicy"},
	{kind: gk("batch", "Job"), path: ".spec.selector"},
	{kind: gk("batch", "Job"), path: ".spec.template"},
	{kind: gk("batch", "Job"), path: ".spec.completionMode"},
	{kind: gk("", "Service"), path: ".spec.clusterIP", when: bothSet},
	{kind: gk("", "Service"), path: ".spec.clusterIPs[0]", when: bothSet},
	{kind: gk("", "PersistentVolumeClaim"), path: ".spec", except: []string{".spec.resources.requests", ".spec.volumeAttributesClassName"}},
	{kind: gk("", "ConfigMap"), path: ".data", when: liveImmutable},
	{kind: gk("", "ConfigMap"), path: ".binaryData", when: liveImmutable},
	{kind: gk("", "ConfigMap"), path: ".immutable", when: liveImmutable},
	{kind: gk("", "Secret"), path: ".data", when: liveImmutable},
	{kind: gk("", "Secret"), path: ".immutable", when: liveImmutable},
	{kind: gk("", "Secret"), path: ".type"},
	{kind: gk("rbac.authorization.k8s.io", "RoleBinding"), path: ".roleRef"},
	{kind: gk("rbac.authorization.k8s.io", "ClusterRoleBinding"), path: ".roleRef"},
	{kind: gk("storage.k8s.io", "StorageClass"), path: ".provisioner"},
	{kind: gk("storage.k8s.io", "StorageClass"), path: ".parameters"},
	{kind: gk("storage.k8s.io", "StorageClass"), path: ".reclaimPolicy"},
	{kind: gk("storage.k8s.io", "StorageClass"), path: ".volumeBindingMode"},
	{kind: gk("scheduling.k8s.io", "PriorityClass"), path: ".value"},
	{kind: gk("scheduling.k8s.io", "PriorityClass"), path: ".preemptionPolicy"},
	{kind: gk("apiextensions.k8s.io", "CustomResourceDefinition"), path: ".spec.group"},
	{kind: gk("apiextensions.k8s.io", "CustomResourceDefinition"), path: ".spec.names.plural"},
	{kind: gk("apiextensions.k8s.io", "CustomResourceDefinition"), path: ".spec.names.kind"},
	{kind: gk("apiextensions.k8s.io", "CustomResourceDefinition"), path: ".spec.scope"},
}

// gardenerImmutableFields are the immutable fields of the Gardener API, from Gardener's API
// reference (docs/api-reference/ in gardener/gardener; each rule names the type whose field it is).
// gardener-apiserver and gardener-operator enforce them in their update validation, not with CEL
// transition rules, so no schema announces them, and the local control plane's stand-in CRDs do not
// enforce them at all: only this table knows them. (engine/plan refuses to replace the Gardener
// objects whose deletion would destroy a cluster; the others are replaced like any object.)
//
// A rule without condition refuses any change, adding and removing the field included (the
// server compares old and new as a whole). bothSet is used where the field may legitimately
// appear later or disappear: Gardener fills it in when it is unset (a default, a generated
// name, a value taken from the seed), so a landscape that leaves it out must not be told that
// the filled-in value is about to be changed; or the reference says "once set". Only a change
// from one value to another is certain to be refused there.
//
// Left out on purpose: status fields (never applied); "the spec is immutable once the deletion
// timestamp is set" (Gardener's Shoot in docs/api-reference/core.md, ControllerInstallation in
// docs/api-reference/core.md, extension kinds), which concerns objects being deleted, not
// replacements; ControllerRegistration and operator Extension .spec.resources[].primary (Gardener's
// ControllerResource in docs/api-reference/core.md, "ControllerRegistration"
// docs/extensions/registration.md), whose list the stand-in serves as an atomic list, so an item
// matched by index after a reordering would look like a change of primary; the Shoot's HA and
// workerless transitions (Gardener's "Shoot High Availability"
// docs/usage/high-availability/shoot_high_availability.md, "Workerless Shoots"
// docs/usage/shoot/shoot_workerless.md), which are rules about values, not fields.
var gardenerImmutableFields = []immutableField{
	// core.gardener.cloud Shoot (resource Gardener's Shoot in docs/api-reference/core.md; ShootSpec
	// Gardener's ShootSpec in docs/api-reference/core.md).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.region"},        // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.provider.type"}, // Provider Gardener's Provider in docs/api-reference/core.md
	// The CNI type: required for a Shoot with workers; a workerless Shoot has none and cannot get
	// workers later (Gardener's docs/usage/shoot/shoot_workerless.md), so adding or removing it is
	// refused as well.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.type"}, // Networking Gardener's Networking in docs/api-reference/core.md
	// Pods and services CIDRs default to the seed's shootDefaults (Gardener's SeedNetworks in
	// docs/api-reference/core.md, "Deploy Gardenlet Manually"
	// docs/deployment/deploy_gardenlet_manually.md) when the landscape leaves them out; both "cannot
	// be changed afterwards" (Gardener's "Shoot Networking Configurations"
	// docs/usage/networking/shoot_networking.md).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.pods", when: bothSet},     // Gardener's Networking in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.services", when: bothSet}, // Gardener's Networking in docs/api-reference/core.md
	// Defaults to ["IPv4"] (Gardener's Networking in docs/api-reference/core.md): a landscape that
	// stops setting it gets the default back.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.ipFamilies", when: bothSet}, // Gardener's Networking in docs/api-reference/core.md
	// The DNS admission plugin assigns a default domain to Shoots without one (Gardener's "APIServer
	// Admission Plugins" docs/concepts/apiserver-admission-plugins.md, "DNS Record"
	// docs/extensions/resources/dnsrecord.md).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.dns.domain", when: bothSet}, // DNS Gardener's DNS in docs/api-reference/core.md
	// Mutually exclusive with credentialsBindingName (Gardener's Shoot in docs/api-reference/core.md):
	// a Shoot moving from a SecretBinding to a CredentialsBinding drops it, which an operator expects
	// Gardener to allow (the reference is silent); replacing one binding by another is refused.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.secretBindingName", when: bothSet}, // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.exposureClassName"},                // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.schedulerName"},                    // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
	// Defaults to 24 (Gardener's KubeControllerManagerConfig in docs/api-reference/core.md,
	// docs/usage/networking/shoot_networking.md).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", when: bothSet}, // Gardener's KubeControllerManagerConfig in docs/api-reference/core.md
	// High availability can be added to a control plane, but once set neither removed nor
	// switched between node and zone (Gardener's
	// docs/usage/high-availability/shoot_high_availability.md).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.controlPlane", when: wasSet}, // its only field is highAvailability

	// core.gardener.cloud Seed (resource Gardener's Seed in docs/api-reference/core.md; SeedSpec
	// Gardener's SeedSpec in docs/api-reference/core.md; SeedNetworks Gardener's SeedNetworks in
	// docs/api-reference/core.md).
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.pods"},     // Gardener's SeedNetworks in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.services"}, // Gardener's SeedNetworks in docs/api-reference/core.md
	// Optional (Gardener's SeedNetworks in docs/api-reference/core.md): a seed may learn its node
	// network later.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.nodes", when: bothSet},      // Gardener's SeedNetworks in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.ipFamilies", when: bothSet}, // default ["IPv4"], Gardener's SeedNetworks in docs/api-reference/core.md
	// Changing the object store's provider of an existing backup; adding backup to a seed
	// without one adds .spec.backup as a whole, which this rule does not match.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.backup.provider"}, // SeedBackup Gardener's SeedBackup in docs/api-reference/core.md
	// Optional (Gardener's SeedBackup in docs/api-reference/core.md); an operator expects the bucket
	// in the seed's own region without it.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.backup.region", when: bothSet}, // Gardener's SeedBackup in docs/api-reference/core.md
	// The reference calls the whole ingress immutable (Gardener's Seed in docs/api-reference/core.md,
	// SeedSpec in docs/api-reference/core.md) but its type narrows it to the domain, "once set"
	// (Gardener's Ingress in docs/api-reference/core.md); the ingress controller's settings stay
	// mutable, as operators expect.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.ingress.domain", when: bothSet}, // Gardener's Ingress in docs/api-reference/core.md

	// core.gardener.cloud Project. Gardener generates the namespace when it is unset (Gardener's
	// Project in docs/api-reference/core.md) and records the creator (Gardener's Project in
	// docs/api-reference/core.md).
	{kind: gk(gardenerCore, "Project"), path: ".spec.namespace", when: bothSet}, // Gardener's Project in docs/api-reference/core.md, ProjectSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "Project"), path: ".spec.createdBy", when: bothSet}, // Gardener's Project in docs/api-reference/core.md, ProjectSpec in docs/api-reference/core.md

	// core.gardener.cloud SecretBinding: fields at the top level (Gardener's SecretBinding in
	// docs/api-reference/core.md).
	{kind: gk(gardenerCore, "SecretBinding"), path: ".secretRef"}, // Gardener's SecretBinding in docs/api-reference/core.md
	{kind: gk(gardenerCore, "SecretBinding"), path: ".quotas"},    // Gardener's SecretBinding in docs/api-reference/core.md
	// Optional (Gardener's SecretBinding in docs/api-reference/core.md): bindings created without it
	// may get it once.
	{kind: gk(gardenerCore, "SecretBinding"), path: ".provider", when: bothSet}, // Gardener's SecretBinding in docs/api-reference/core.md

	// security.gardener.cloud CredentialsBinding: fields at the top level (Gardener's
	// CredentialsBinding in docs/api-reference/security.md).
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".provider"},       // Gardener's CredentialsBinding in docs/api-reference/security.md
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".credentialsRef"}, // Gardener's CredentialsBinding in docs/api-reference/security.md
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".quotas"},         // Gardener's CredentialsBinding in docs/api-reference/security.md

	{kind: gk(gardenerCore, "Quota"), path: ".spec.scope"}, // Gardener's Quota in docs/api-reference/core.md, QuotaSpec in docs/api-reference/core.md

	// core.gardener.cloud ExposureClass: fields at the top level.
	{kind: gk(gardenerCore, "ExposureClass"), path: ".handler"},    // Gardener's ExposureClass in docs/api-reference/core.md
	{kind: gk(gardenerCore, "ExposureClass"), path: ".scheduling"}, // Gardener's ExposureClass in docs/api-reference/core.md

	{kind: gk(gardenerCore, "ControllerInstallation"), path: ".spec.registrationRef.name"}, // Gardener's ControllerInstallation in docs/api-reference/core.md, ControllerInstallationSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "ControllerInstallation"), path: ".spec.seedRef.name"},         // Gardener's ControllerInstallation in docs/api-reference/core.md, ControllerInstallationSpec in docs/api-reference/core.md

	// core.gardener.cloud BackupBucket; the seed is assigned once (optional, Gardener's BackupBucket
	// in docs/api-reference/core.md).
	{kind: gk(gardenerCore, "BackupBucket"), path: ".spec.provider"},                // Gardener's BackupBucket in docs/api-reference/core.md, BackupBucketSpec in docs/api-reference/core.md
	{kind: gk(gardenerCore, "BackupBucket"), path: ".spec.seedName", when: bothSet}, // Gardener's BackupBucket in docs/api-reference/core.md, BackupBucketSpec in docs/api-reference/core.md

	// operations.gardener.cloud Bastion.
	{kind: gk("operations.gardener.cloud", "Bastion"), path: ".spec.shootRef.name"}, // Gardener's Bastion in docs/api-reference/operations.md
	{kind: gk("operations.gardener.cloud", "Bastion"), path: ".spec.sshPublicKey"},  // Gardener's Bastion in docs/api-reference/operations.md

	// seedmanagement.gardener.cloud ManagedSeed and ManagedSeedSet; bootstrap, mergeWithParent
	// and revisionHistoryLimit have defaults (Gardener's GardenletConfig in
	// docs/api-reference/seedmanagement.md, ManagedSeedSet in docs/api-reference/seedmanagement.md).
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.shoot"},                                    // Gardener's ManagedSeed in docs/api-reference/seedmanagement.md
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.gardenlet.bootstrap", when: bothSet},       // Gardener's GardenletConfig in docs/api-reference/seedmanagement.md
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.gardenlet.mergeWithParent", when: bothSet}, // Gardener's GardenletConfig in docs/api-reference/seedmanagement.md
	{kind: gk(gardenerSeedManagement, "ManagedSeedSet"), path: ".spec.selector"},                              // Gardener's ManagedSeedSet in docs/api-reference/seedmanagement.md
	{kind: gk(gardenerSeedManagement, "ManagedSeedSet"), path: ".spec.revisionHistoryLimit", when: bothSet},   // Gardener's ManagedSeedSet in docs/api-reference/seedmanagement.md

	// operator.gardener.cloud Garden.
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.pods"},                 // RuntimeNetworking Gardener's RuntimeNetworking in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.services"},             // Gardener's RuntimeNetworking in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.nodes", when: bothSet}, // optional, Gardener's RuntimeNetworking in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.networking.services"},             // Networking Gardener's Networking in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.gardener.clusterIdentity"},        // Gardener Gardener's Gardener in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.etcd.main.backup.provider"},       // Backup (on ETCDMain) Gardener's Backup in docs/api-reference/operator.md
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.dns.domains[0].name"},             // "the first given domain", Gardener's DNS in docs/api-reference/operator.md

	// extensions.gardener.cloud, written by gardenlet or, for shoot control planes the engine
	// manages, by the landscape (Gardener's "Extensions" docs/api-reference/extensions.md).
	{kind: gk(gardenerExtensions, "BackupBucket"), path: ".spec.region"},                 // Gardener's BackupBucket in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "BackupEntry"), path: ".spec.region"},                  // Gardener's BackupEntry in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Bastion"), path: ".spec.userData"},                    // Gardener's Bastion in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "ContainerRuntime"), path: ".spec.workerPool.name"},    // Gardener's ContainerRuntimeWorkerPool in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "ControlPlane"), path: ".spec.purpose", when: bothSet}, // optional, Gardener's ControlPlane in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "ControlPlane"), path: ".spec.region"},                 // Gardener's ControlPlane in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "DNSRecord"), path: ".spec.name"},                      // Gardener's DNSRecord in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "DNSRecord"), path: ".spec.recordType"},                // Gardener's DNSRecord in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Infrastructure"), path: ".spec.region"},               // Gardener's Infrastructure in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.podCIDR"},                     // Gardener's Network in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.serviceCIDR"},                 // Gardener's Network in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.ipFamilies", when: bothSet},   // optional, Gardener's Network in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "OperatingSystemConfig"), path: ".spec.purpose"},       // Gardener's OperatingSystemConfig in docs/api-reference/extensions.md
	{kind: gk(gardenerExtensions, "Worker"), path: ".spec.region"},                       // Gardener's Worker in docs/api-reference/extensions.md
}

// The Gardener API groups of gardenerImmutableFields.
const (
	gardenerCore           = "core.gardener.cloud"
	gardenerSecurity       = "security.gardener.cloud"
	gardenerSeedManagement = "seedmanagement.gardener.cloud"
	gardenerOperator       = "operator.gardener.cloud"
	gardenerExtensions     = "extensions.gardener.cloud"
)

func gk(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }

// patElem is one element of a parsed rule path.
type patElem struct {
	name  string // field name; empty for items
	index int    // -1: any item
	item  bool
}

// compiledRule is a rule with parsed paths.
type compiledRule struct {
	path   []patElem
	except [][]patElem
	when   condition
}

var builtinRules = func() map[schema.GroupKind][]compiledRule {
	out := map[schema.GroupKind][]compiledRule{}
	for _, f := range append(append([]immutableField(nil), immutableFields...), gardenerImmutableFields...) {
		r := compiledRule{path: parsePattern(f.path), when: f.when}
		for _, e := range f.except {
			r.except = append(r.except, parsePattern(e))
		}
		out[f.kind] = append(out[f.kind], r)
	}
	return out
}()

// parsePattern parses ".spec.items[*].name" or ".spec.clusterIPs[0]".
func parsePattern(s string) []patElem {
	var out []patElem
	for s != "" {
		switch s[0] {
		case '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			out = append(out, patElem{name: s[1 : end+1]})
			s = s[end+1:]
		case '[':
			end := strings.IndexByte(s, ']')
			inner := s[1:end]
			e := patElem{item: true, index: -1}
			if n, err := strconv.Atoi(inner); err == nil {
				e.index = n
			}
			out = append(out, e)
			s = s[end+1:]
		default:
			panic("diff: bad immutable field pattern " + s)
		}
	}
	return out
}

// fromOpenAPI converts a schema pattern (x-kubernetes-validations self == oldSelf).
func fromOpenAPI(p openapi.Pattern) []patElem {
	out := make([]patElem, len(p))
	for i, e := range p {
		if e == openapi.AnyItem {
			out[i] = patElem{item: true, index: -1}
		} else {
			out[i] = patElem{name: e}
		}
	}
	return out
}

// matchPrefix reports whether the pattern matches the first len(pat) steps of path.
func matchPrefix(pat []patElem, path fieldPath) bool {
	if len(path) < len(pat) {
		return false
	}
	for i, e := range pat {
		s := path[i]
		switch {
		case !e.item:
			if (s.kind != stepField && s.kind != stepMapKey) || s.name != e.name {
				return false
			}
		case e.index >= 0:
			if s.kind != stepIndex || s.index != e.index {
				return false
			}
		default:
			if s.kind == stepField {
				return false
			}
		}
	}
	return true
}

// immutableChanges returns the sorted, distinct immutable field paths that the changes touch.
func immutableChanges(sc *smdschema.Schema, tr smdschema.TypeRef, rules []compiledRule, changes []rawChange, live, merged map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, ch := range changes {
		for _, r := range rules {
			if !matchPrefix(r.path, ch.path) || excepted(r.except, ch.path) {
				continue
			}
			at := ch.path[:len(r.path)]
			if r.when != nil {
				old, oldOK := lookup(sc, tr, live, at)
				new, newOK := lookup(sc, tr, merged, at)
				if !r.when(old, new, oldOK, newOK, live) {
					continue
				}
			}
			p := at.String()
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sortStrings(out)
	return out
}

func excepted(except [][]patElem, path fieldPath) bool {
	for _, e := range except {
		if matchPrefix(e, path) {
			return true
		}
	}
	return false
}

// lookup returns the value at a path of an object.
func lookup(sc *smdschema.Schema, tr smdschema.TypeRef, obj any, path fieldPath) (any, bool) {
	c := comparer{sc: sc}
	cur := obj
	for _, s := range path {
		atom, _ := sc.Resolve(tr)
		switch s.kind {
		case stepField, stepMapKey:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.name]; !ok {
				return nil, false
			}
			tr = smdschema.TypeRef{NamedType: ptrTo(deducedTypeName)}
			if atom.Map != nil {
				if f, found := atom.Map.FindField(s.name); found {
					tr = f.Type
				} else {
					tr = atom.Map.ElementType
				}
			}
		default:
			l, ok := cur.([]any)
			if !ok || atom.List == nil {
				return nil, false
			}
			tr = atom.List.ElementType
			switch s.kind {
			case stepIndex:
				if s.index >= len(l) {
					return nil, false
				}
				cur = l[s.index]
			case stepSetItem:
				found := false
				for _, v := range l {
					if renderScalar(v) == s.name {
						cur, found = v, true
						break
					}
				}
				if !found {
					return nil, false
				}
			case stepListKey:
				keys, ok := c.itemKeys(l, atom.List)
				if !ok {
					return nil, false
				}
				found := false
				for i, k := range keys {
					if k == s.name {
						cur, found = l[i], true
						break
					}
				}
				if !found {
					return nil, false
				}
			}
		}
	}
	return cur, true
}
