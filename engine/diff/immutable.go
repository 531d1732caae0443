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

// gardenerImmutableFields are the immutable fields of the Gardener API, from the API reference
// (S4 = shared/seeds/004_f69719840e4185ec.txt; "S4:1187" is its line 1187). gardener-apiserver
// and gardener-operator enforce them in their update validation, not with CEL transition rules,
// so no schema announces them, and the local control plane's stand-in CRDs do not enforce them
// at all: only this table knows them. (engine/plan refuses to replace the Gardener objects whose
// deletion would destroy a cluster; the others are replaced like any object.)
//
// A rule without condition refuses any change, adding and removing the field included (the
// server compares old and new as a whole). bothSet is used where the field may legitimately
// appear later or disappear: Gardener fills it in when it is unset (a default, a generated
// name, a value taken from the seed), so a landscape that leaves it out must not be told that
// the filled-in value is about to be changed; or the reference says "once set". Only a change
// from one value to another is certain to be refused there.
//
// Left out on purpose: status fields (never applied); "the spec is immutable once the deletion
// timestamp is set" (S4:1116, S4:655, extension kinds), which concerns objects being deleted,
// not replacements; ControllerRegistration and operator Extension .spec.resources[].primary
// (S4:2185, S4:15342), whose list the stand-in serves as an atomic list, so an item matched by
// index after a reordering would look like a change of primary; the Shoot's HA and workerless
// transitions (S4:18751-18766, S4:23486), which are rules about values, not fields.
var gardenerImmutableFields = []immutableField{
	// core.gardener.cloud Shoot (resource S4:1094-1266; ShootSpec S4:5325).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.region"},        // S4:1187, S4:5399
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.provider.type"}, // Provider S4:4320
	// The CNI type: required for a Shoot with workers; a workerless Shoot has none and cannot get
	// workers later (S4:23486), so adding or removing it is refused as well.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.type"}, // Networking S4:3908
	// Pods and services CIDRs default to the seed's shootDefaults (S4:4559-4563, S4:19133) when
	// the landscape leaves them out; both "cannot be changed afterwards" (S4:21380).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.pods", when: bothSet},     // S4:3920
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.services", when: bothSet}, // S4:3932
	// Defaults to ["IPv4"] (S4:3938): a landscape that stops setting it gets the default back.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.networking.ipFamilies", when: bothSet}, // S4:3938
	// The DNS admission plugin assigns a default domain to Shoots without one (S4:11786,
	// S4:17086).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.dns.domain", when: bothSet}, // DNS S4:2297
	// Mutually exclusive with credentialsBindingName (S4:1193, S4:1253): a Shoot moving from a
	// SecretBinding to a CredentialsBinding drops it, which an operator expects Gardener to allow
	// (the reference is silent); replacing one binding by another is refused.
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.secretBindingName", when: bothSet}, // S4:1193, S4:5405
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.exposureClassName"},                // S4:1223, S4:5435
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.schedulerName"},                    // S4:1241, S4:5453
	// Defaults to 24 (S4:2951, S4:21415-21419).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", when: bothSet}, // S4:2951
	// High availability can be added to a control plane, but once set neither removed nor
	// switched between node and zone (S4:18751-18766).
	{kind: gk(gardenerCore, "Shoot"), path: ".spec.controlPlane", when: wasSet}, // its only field is highAvailability

	// core.gardener.cloud Seed (resource S4:1014; SeedSpec S4:4854; SeedNetworks S4:4536-4575).
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.pods"},     // S4:4552
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.services"}, // S4:4557
	// Optional (S4:4545): a seed may learn its node network later.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.nodes", when: bothSet},      // S4:4547
	{kind: gk(gardenerCore, "Seed"), path: ".spec.networks.ipFamilies", when: bothSet}, // default ["IPv4"], S4:4575
	// Changing the object store's provider of an existing backup; adding backup to a seed
	// without one adds .spec.backup as a whole, which this rule does not match.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.backup.provider"}, // SeedBackup S4:4487
	// Optional (S4:4497); an operator expects the bucket in the seed's own region without it.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.backup.region", when: bothSet}, // S4:4499
	// The reference calls the whole ingress immutable (S4:1081, S4:4904) but its type narrows it
	// to the domain, "once set" (S4:2794); the ingress controller's settings stay mutable, as
	// operators expect.
	{kind: gk(gardenerCore, "Seed"), path: ".spec.ingress.domain", when: bothSet}, // S4:2794

	// core.gardener.cloud Project. Gardener generates the namespace when it is unset (S4:917) and
	// records the creator (S4:887).
	{kind: gk(gardenerCore, "Project"), path: ".spec.namespace", when: bothSet}, // S4:917, S4:4241
	{kind: gk(gardenerCore, "Project"), path: ".spec.createdBy", when: bothSet}, // S4:887, S4:4211

	// core.gardener.cloud SecretBinding: fields at the top level (S4:979-1012).
	{kind: gk(gardenerCore, "SecretBinding"), path: ".secretRef"}, // S4:1000
	{kind: gk(gardenerCore, "SecretBinding"), path: ".quotas"},    // S4:1006
	// Optional (S4:1010): bindings created without it may get it once.
	{kind: gk(gardenerCore, "SecretBinding"), path: ".provider", when: bothSet}, // S4:1012

	// security.gardener.cloud CredentialsBinding: fields at the top level (S4:10090-10122).
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".provider"},       // S4:10111
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".credentialsRef"}, // S4:10116
	{kind: gk(gardenerSecurity, "CredentialsBinding"), path: ".quotas"},         // S4:10122

	{kind: gk(gardenerCore, "Quota"), path: ".spec.scope"}, // S4:977, S4:4373

	// core.gardener.cloud ExposureClass: fields at the top level.
	{kind: gk(gardenerCore, "ExposureClass"), path: ".handler"},    // S4:737
	{kind: gk(gardenerCore, "ExposureClass"), path: ".scheduling"}, // S4:743

	{kind: gk(gardenerCore, "ControllerInstallation"), path: ".spec.registrationRef.name"}, // S4:662, S4:2076
	{kind: gk(gardenerCore, "ControllerInstallation"), path: ".spec.seedRef.name"},         // S4:667, S4:2081

	// core.gardener.cloud BackupBucket; the seed is assigned once (optional, S4:476).
	{kind: gk(gardenerCore, "BackupBucket"), path: ".spec.provider"},                // S4:461, S4:1547
	{kind: gk(gardenerCore, "BackupBucket"), path: ".spec.seedName", when: bothSet}, // S4:478, S4:1564

	// operations.gardener.cloud Bastion.
	{kind: gk("operations.gardener.cloud", "Bastion"), path: ".spec.shootRef.name"}, // S4:8286
	{kind: gk("operations.gardener.cloud", "Bastion"), path: ".spec.sshPublicKey"},  // S4:8303

	// seedmanagement.gardener.cloud ManagedSeed and ManagedSeedSet; bootstrap, mergeWithParent
	// and revisionHistoryLimit have defaults (S4:10526, S4:10532, S4:10489).
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.shoot"},                                    // S4:10419
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.gardenlet.bootstrap", when: bothSet},       // S4:10526
	{kind: gk(gardenerSeedManagement, "ManagedSeed"), path: ".spec.gardenlet.mergeWithParent", when: bothSet}, // S4:10532
	{kind: gk(gardenerSeedManagement, "ManagedSeedSet"), path: ".spec.selector"},                              // S4:10467
	{kind: gk(gardenerSeedManagement, "ManagedSeedSet"), path: ".spec.revisionHistoryLimit", when: bothSet},   // S4:10489

	// operator.gardener.cloud Garden.
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.pods"},                 // RuntimeNetworking S4:9584
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.services"},             // S4:9589
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.runtimeCluster.networking.nodes", when: bothSet}, // optional, S4:9579
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.networking.services"},             // Networking S4:9436
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.gardener.clusterIdentity"},        // Gardener S4:9080
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.etcd.main.backup.provider"},       // Backup (on ETCDMain) S4:8508
	{kind: gk(gardenerOperator, "Garden"), path: ".spec.virtualCluster.dns.domains[0].name"},             // "the first given domain", S4:8600

	// extensions.gardener.cloud, written by gardenlet or, for shoot control planes the engine
	// manages, by the landscape (S4:6290-8247).
	{kind: gk(gardenerExtensions, "BackupBucket"), path: ".spec.region"},                 // S4:6331
	{kind: gk(gardenerExtensions, "BackupEntry"), path: ".spec.region"},                  // S4:6379
	{kind: gk(gardenerExtensions, "Bastion"), path: ".spec.userData"},                    // S4:6426
	{kind: gk(gardenerExtensions, "ContainerRuntime"), path: ".spec.workerPool.name"},    // S4:7184
	{kind: gk(gardenerExtensions, "ControlPlane"), path: ".spec.purpose", when: bothSet}, // optional, S4:6544-6546
	{kind: gk(gardenerExtensions, "ControlPlane"), path: ".spec.region"},                 // S4:6557
	{kind: gk(gardenerExtensions, "DNSRecord"), path: ".spec.name"},                      // S4:6616
	{kind: gk(gardenerExtensions, "DNSRecord"), path: ".spec.recordType"},                // S4:6621
	{kind: gk(gardenerExtensions, "Infrastructure"), path: ".spec.region"},               // S4:6701
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.podCIDR"},                     // S4:6749
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.serviceCIDR"},                 // S4:6754
	{kind: gk(gardenerExtensions, "Network"), path: ".spec.ipFamilies", when: bothSet},   // optional, S4:6760
	{kind: gk(gardenerExtensions, "OperatingSystemConfig"), path: ".spec.purpose"},       // S4:6803
	{kind: gk(gardenerExtensions, "Worker"), path: ".spec.region"},                       // S4:6858
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
