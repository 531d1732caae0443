package extension

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// This file ports the rule by which gardener-controller-manager's controllerregistration-seed
// controller decides which ControllerInstallations a seed has
// (pkg/controllermanager/controller/controllerregistration/seed/reconciler.go at Gardener
// v1.120.0) and the extension kinds and types a seed and a shoot require
// (ComputeRequiredExtensionsForSeed in pkg/utils/gardener/seed.go, ComputeRequiredExtensionsForShoot
// and ComputeEnabledTypesForKindExtension in pkg/utils/gardener/shoot.go). The engine predicts
// with it what gardener-controller-manager will create and delete; the rule works on the few
// fields it reads, as typed values, so that its table tests read like Gardener's own.

// The deployment policies of a ControllerRegistration (Gardener's ControllerRegistrationDeployment
// in docs/api-reference/core.md); OnDemand is the default.
const (
	policyAlways               = "Always"
	policyAlwaysExceptNoShoots = "AlwaysExceptNoShoots"
	policyOnDemand             = "OnDemand"
)

// The cluster types a resource of kind Extension may be enabled for automatically (autoEnable).
const (
	clusterTypeShoot = "shoot"
	clusterTypeSeed  = "seed"
)

// dnsUnmanaged is the DNS provider type that needs no DNSRecord extension.
const dnsUnmanaged = "unmanaged"

// extensionID is an extension kind and type, "Network/calico" (gardenerutils.ExtensionsID).
func extensionID(kind, typ string) string { return kind + "/" + typ }

// gcmSeed is what the rule reads of a Seed.
type gcmSeed struct {
	Name     string
	Labels   map[string]string
	Deleting bool
	// ProviderType is .spec.provider.type; DNSProviderType .spec.dns.provider.type ("" without a
	// provider); BackupProvider .spec.backup.provider ("" without backup).
	ProviderType, DNSProviderType, BackupProvider string
	// Extensions are .spec.extensions.
	Extensions []gcmExtension
}

// gcmExtension is an entry of a Seed's or Shoot's .spec.extensions.
type gcmExtension struct {
	Type     string
	Disabled bool
}

// gcmShoot is what the rule reads of a Shoot.
type gcmShoot struct {
	// Name is "namespace/name", for reasons.
	Name string
	// SeedName and StatusSeedName are .spec.seedName and .status.seedName.
	SeedName, StatusSeedName string
	ProviderType             string
	Workers                  []gcmWorker
	// NetworkingType is .spec.networking.type, "" when unset.
	NetworkingType string
	// DNSDomain is .spec.dns.domain; DNSProviders are .spec.dns.providers.
	DNSDomain    string
	DNSProviders []gcmDNSProvider
	Extensions   []gcmExtension
}

// gcmWorker is a worker pool: its machine image (none without .machine.image), its container
// runtimes, and the backup of an autonomous shoot's control plane pool
// (.controlPlane.backup.provider; ControlPlane says the pool runs the control plane).
type gcmWorker struct {
	ImageName         string
	ContainerRuntimes []string
	ControlPlane      bool
	BackupProvider    string
}

// gcmDNSProvider is an entry of a Shoot's .spec.dns.providers.
type gcmDNSProvider struct {
	Type    string
	Primary bool
}

// gcmDomain is a domain of the garden: its provider type and domain (the annotations of a Secret
// with role internal-domain or default-domain).
type gcmDomain struct {
	Provider, Domain string
}

// gcmRegistration is what the rule reads of a ControllerRegistration.
type gcmRegistration struct {
	Name     string
	Deleting bool
	// Policy is .spec.deployment.policy; "" is OnDemand.
	Policy string
	// SeedSelector is .spec.deployment.seedSelector; nil selects every seed.
	SeedSelector *metav1.LabelSelector
	Resources    []gcmResource
}

// gcmResource is a ControllerResource: every resource counts for the registration, primary or not.
type gcmResource struct {
	Kind, Type          string
	AutoEnable          []string
	WorkerlessSupported bool
}

// gcmInstallation is what the rule reads of a ControllerInstallation.
type gcmInstallation struct {
	Name, Registration, Seed string
	// Required says the Required condition is True.
	Required bool
	Deleting bool
}

// gcmBackupBucket and gcmBackupEntry are the core BackupBuckets and BackupEntries of the garden.
type gcmBackupBucket struct {
	Name, SeedName, ProviderType string
}

type gcmBackupEntry struct {
	Name, SeedName, BucketName string
}

// set is a set of extension IDs or registration names.
type set map[string]bool

func (s set) add(items ...string) {
	for _, i := range items {
		s[i] = true
	}
}

func (s set) union(o set) {
	for i := range o {
		s[i] = true
	}
}

// sorted lists the set's items.
func (s set) sorted() []string {
	out := make([]string, 0, len(s))
	for i := range s {
		out = append(out, i)
	}
	sort.Strings(out)
	return out
}

// requiredForSeed is ComputeRequiredExtensionsForSeed: the DNSRecord of the seed's DNS provider,
// the Extensions it enables and those registered for automatic enablement on seeds unless it
// disables them, and ControlPlane, Infrastructure and Worker of its provider type.
func requiredForSeed(seed gcmSeed, registrations []gcmRegistration) set {
	out := set{}
	if seed.DNSProviderType != "" {
		out.add(extensionID(kinds.DNSRecordKind, seed.DNSProviderType))
	}
	disabled := set{}
	for _, e := range seed.Extensions {
		if e.Disabled {
			disabled.add(e.Type)
		} else {
			out.add(extensionID(kinds.ExtensionKind, e.Type))
		}
	}
	for _, r := range registrations {
		for _, res := range r.Resources {
			if enabledFor(clusterTypeSeed, res, disabled) {
				out.add(extensionID(kinds.ExtensionKind, res.Type))
			}
		}
	}
	out.add(extensionID(kinds.ControlPlaneKind, seed.ProviderType), extensionID(kinds.InfrastructureKind, seed.ProviderType), extensionID(kinds.WorkerKind, seed.ProviderType))
	return out
}

// requiredForShoot is ComputeRequiredExtensionsForShoot: the backup of its seed (or of its control
// plane pool when autonomous), the seed's provider's ControlPlane, for shoots with workers
// ControlPlane, Infrastructure, Worker and Network, the pools' operating systems and container
// runtimes, the DNSRecords of its primary DNS provider and of the garden's internal and its
// external domain, and its Extensions (enabledExtensionTypes). seed is nil for a shoot without one.
func requiredForShoot(shoot gcmShoot, seed *gcmSeed, registrations []gcmRegistration, internal, external *gcmDomain) set {
	out := set{}
	if backup := backupProviderOf(shoot, seed); backup != "" {
		out.add(extensionID(kinds.BackupBucketKind, backup), extensionID(kinds.BackupEntryKind, backup))
	}
	if seed != nil {
		// Gardener's own comment: the seed provider's control plane extension may come with
		// webhooks that expose shoot control planes.
		out.add(extensionID(kinds.ControlPlaneKind, seed.ProviderType))
	}
	if !shoot.workerless() {
		out.add(extensionID(kinds.ControlPlaneKind, shoot.ProviderType), extensionID(kinds.InfrastructureKind, shoot.ProviderType), extensionID(kinds.WorkerKind, shoot.ProviderType))
		if shoot.NetworkingType != "" {
			out.add(extensionID(kinds.NetworkKind, shoot.NetworkingType))
		}
	}
	for _, w := range shoot.Workers {
		if w.ImageName != "" {
			out.add(extensionID(kinds.OperatingSystemConfigKind, w.ImageName))
		}
		for _, cr := range w.ContainerRuntimes {
			out.add(extensionID(kinds.ContainerRuntimeKind, cr))
		}
	}
	for _, p := range shoot.DNSProviders {
		if p.Type != "" && p.Type != dnsUnmanaged && p.Primary {
			out.add(extensionID(kinds.DNSRecordKind, p.Type))
		}
	}
	for _, d := range []*gcmDomain{internal, external} {
		if d != nil && d.Provider != dnsUnmanaged {
			out.add(extensionID(kinds.DNSRecordKind, d.Provider))
		}
	}
	for t := range enabledExtensionTypes(shoot, registrations) {
		out.add(extensionID(kinds.ExtensionKind, t))
	}
	return out
}

// workerless is IsWorkerless: a shoot without worker pools.
func (s gcmShoot) workerless() bool { return len(s.Workers) == 0 }

// backupProviderOf is GetBackupConfigForShoot's provider: the seed's backup, or for an autonomous
// shoot (a pool runs its control plane) that pool's backup.
func backupProviderOf(shoot gcmShoot, seed *gcmSeed) string {
	for _, w := range shoot.Workers {
		if w.ControlPlane {
			return w.BackupProvider
		}
	}
	if seed == nil {
		return ""
	}
	return seed.BackupProvider
}

// enabledExtensionTypes is ComputeEnabledTypesForKindExtension: the Extension types the shoot
// enables, and those registered for automatic enablement on shoots unless it disables them (for a
// workerless shoot only those that support it).
func enabledExtensionTypes(shoot gcmShoot, registrations []gcmRegistration) set {
	enabled, disabled := set{}, set{}
	for _, e := range shoot.Extensions {
		if e.Disabled {
			disabled.add(e.Type)
		} else {
			enabled.add(e.Type)
		}
	}
	for _, r := range registrations {
		for _, res := range r.Resources {
			if !enabledFor(clusterTypeShoot, res, disabled) || (shoot.workerless() && !res.WorkerlessSupported) {
				continue
			}
			enabled.add(res.Type)
		}
	}
	return enabled
}

// enabledFor is extensionEnabledForCluster (pkg/utils/gardener/controllerregistration.go): a
// resource of kind Extension enabled automatically for the cluster type and not disabled.
func enabledFor(clusterType string, res gcmResource, disabled set) bool {
	return res.Kind == kinds.ExtensionKind && !disabled[res.Type] && slices.Contains(res.AutoEnable, clusterType)
}

// externalDomainOf is ConstructExternalDomain's provider: none without .spec.dns.domain; the
// default domain the shoot's domain is a subdomain of; else its primary DNS provider's type; else
// none (Gardener's IncompleteDNSConfigError, which the reconciler only logs).
func externalDomainOf(shoot gcmShoot, defaults []gcmDomain) *gcmDomain {
	if shoot.DNSDomain == "" {
		return nil
	}
	for _, d := range defaults {
		if strings.HasSuffix(shoot.DNSDomain, "."+d.Domain) {
			return &gcmDomain{Provider: d.Provider, Domain: shoot.DNSDomain}
		}
	}
	for _, p := range shoot.DNSProviders {
		if p.Primary {
			return &gcmDomain{Provider: p.Type, Domain: shoot.DNSDomain}
		}
	}
	return nil
}

// shootsOn are the shoots the reconciler lists for a seed (getShoots): those with .spec.seedName
// or .status.seedName naming it, each once.
func shootsOn(seed string, shoots []gcmShoot) []gcmShoot {
	var out []gcmShoot
	for _, s := range shoots {
		if s.SeedName == seed || s.StatusSeedName == seed {
			out = append(out, s)
		}
	}
	return out
}

// kindTypesForBackupBuckets is computeKindTypesForBackupBuckets: BackupBucket of the provider
// type of every BackupBucket on the seed.
func kindTypesForBackupBuckets(buckets []gcmBackupBucket, seed string) set {
	out := set{}
	for _, b := range buckets {
		if b.SeedName == seed {
			out.add(extensionID(kinds.BackupBucketKind, b.ProviderType))
		}
	}
	return out
}

// kindTypesForBackupEntries is computeKindTypesForBackupEntries: BackupEntry of the provider type
// of the bucket of every BackupEntry on the seed; entries whose bucket is unknown are skipped.
func kindTypesForBackupEntries(entries []gcmBackupEntry, buckets []gcmBackupBucket, seed string) set {
	byName := map[string]gcmBackupBucket{}
	for _, b := range buckets {
		byName[b.Name] = b
	}
	out := set{}
	for _, e := range entries {
		if e.SeedName != seed {
			continue
		}
		if b, ok := byName[e.BucketName]; ok {
			out.add(extensionID(kinds.BackupEntryKind, b.ProviderType))
		}
	}
	return out
}

// kindTypesForShoots is computeKindTypesForShoots: what the shoots on the seed require.
func kindTypesForShoots(shoots []gcmShoot, seed gcmSeed, registrations []gcmRegistration, internal *gcmDomain, defaults []gcmDomain) set {
	out := set{}
	for _, s := range shootsOn(seed.Name, shoots) {
		out.union(requiredForShoot(s, &seed, registrations, internal, externalDomainOf(s, defaults)))
	}
	return out
}

// kindTypesForSeed is computeKindTypesForSeed: what the seed requires, nothing while it is being
// deleted, so that its installations go.
func kindTypesForSeed(seed gcmSeed, registrations []gcmRegistration) set {
	if seed.Deleting {
		return set{}
	}
	return requiredForSeed(seed, registrations)
}

// errNoRegistration is gardener-controller-manager's error for a required kind and type no
// ControllerRegistration serves: it fails the whole reconciliation of the seed.
type errNoRegistration struct{ id string }

func (e errNoRegistration) Error() string {
	return fmt.Sprintf("need to install an extension controller for %q but no appropriate ControllerRegistration found", e.id)
}

// wantedRegistrations is computeWantedControllerRegistrationNames followed by the seed selector:
// registrations not in deletion with policy Always (unless the seed is being deleted) or
// AlwaysExceptNoShoots (when shoots run on the seed), every registration serving a wanted kind
// and type, and those whose installation on the seed reports Required; of them those whose seed
// selector matches the seed's labels. A wanted kind and type no registration serves fails it.
func wantedRegistrations(wanted set, installations []gcmInstallation, registrations []gcmRegistration, shoots int, seed gcmSeed) (set, error) {
	out, unserved, err := wantedRegistrationsRelaxed(wanted, installations, registrations, shoots, seed)
	if err == nil && len(unserved) > 0 {
		err = errNoRegistration{unserved[0]}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// wantedRegistrationsRelaxed is wantedRegistrations that goes on where no registration serves a
// wanted kind and type, and returns those kinds and types, sorted: the engine predicts from the
// registrations it knows, while the landscape may register the others in the same apply.
func wantedRegistrationsRelaxed(wanted set, installations []gcmInstallation, registrations []gcmRegistration, shoots int, seed gcmSeed) (set, []string, error) {
	out := set{}
	byID := map[string][]string{}
	byName := map[string]gcmRegistration{}
	for _, r := range registrations {
		byName[r.Name] = r
		if !r.Deleting {
			if r.Policy == policyAlways && !seed.Deleting {
				out.add(r.Name)
			}
			if r.Policy == policyAlwaysExceptNoShoots && shoots > 0 {
				out.add(r.Name)
			}
		}
		for _, res := range r.Resources {
			id := extensionID(res.Kind, res.Type)
			byID[id] = append(byID[id], r.Name)
		}
	}
	var unserved []string
	for _, id := range wanted.sorted() {
		names, ok := byID[id]
		if !ok {
			unserved = append(unserved, id)
			continue
		}
		out.add(names...)
	}
	for _, i := range installations {
		if i.Seed == seed.Name && i.Required {
			out.add(i.Registration)
		}
	}
	matching := set{}
	for _, name := range out.sorted() {
		r, ok := byName[name]
		if !ok {
			return nil, nil, fmt.Errorf("ControllerRegistration with name %s not found", name)
		}
		matches, err := selectorMatches(r.SeedSelector, seed.Labels)
		if err != nil {
			return nil, nil, err
		}
		if matches {
			matching.add(name)
		}
	}
	return matching, unserved, nil
}

// selectorMatches is seedSelectorMatches: a nil selector selects every seed.
func selectorMatches(selector *metav1.LabelSelector, seedLabels map[string]string) (bool, error) {
	if selector == nil {
		selector = &metav1.LabelSelector{}
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return false, fmt.Errorf("label selector conversion failed: %v for seedSelector: %w", *selector, err)
	}
	return s.Matches(labels.Set(seedLabels)), nil
}

// gardenState is what gardener-controller-manager reads of the garden to decide a seed's
// installations.
type gardenState struct {
	Registrations []gcmRegistration
	Installations []gcmInstallation
	Shoots        []gcmShoot
	Buckets       []gcmBackupBucket
	Entries       []gcmBackupEntry
	// Internal is the internal domain, nil without one; Defaults are the default domains.
	Internal *gcmDomain
	Defaults []gcmDomain
}

// seedDecision is the reconciler's outcome for a seed: the registrations it installs there, or
// the error that stops it (then it changes no installation).
type seedDecision struct {
	// Wanted are the registrations it wants on the seed, those serving kinds and types no known
	// registration serves left aside.
	Wanted set
	// Err is the error that stops the reconciler (Unserved among others).
	Err error
	// Unserved are the required kinds and types no known registration serves, sorted.
	Unserved []string
	// Required are the kinds and types the seed, its shoots and its backups require.
	Required set
}

// decideSeed is the reconciler's decision for one seed (Reconcile without its reads and writes):
// the wanted registrations from the kinds and types its BackupBuckets, BackupEntries, shoots and
// the seed itself require, and those the landscape declares for its shoots not applied yet
// (declared).
func decideSeed(seed gcmSeed, g gardenState, declared set) seedDecision {
	required := set{}
	required.union(declared)
	required.union(kindTypesForBackupBuckets(g.Buckets, seed.Name))
	required.union(kindTypesForBackupEntries(g.Entries, g.Buckets, seed.Name))
	required.union(kindTypesForShoots(g.Shoots, seed, g.Registrations, g.Internal, g.Defaults))
	required.union(kindTypesForSeed(seed, g.Registrations))
	wanted, unserved, err := wantedRegistrationsRelaxed(required, g.Installations, g.Registrations, len(shootsOn(seed.Name, g.Shoots)), seed)
	if err == nil && len(unserved) > 0 {
		err = errNoRegistration{unserved[0]}
	}
	return seedDecision{Wanted: wanted, Err: err, Unserved: unserved, Required: required}
}

// installationOf is computeRegistrationNameToInstallationMap's entry for the registration on the
// seed: its ControllerInstallation, found by reference whatever its name; nil when it has none.
// Gardener keeps one per registration and seed; of several, the last listed wins there, and the
// first by name here.
func installationOf(registration, seed string, installations []gcmInstallation) *gcmInstallation {
	var out *gcmInstallation
	for i := range installations {
		in := &installations[i]
		if in.Registration == registration && in.Seed == seed && (out == nil || in.Name < out.Name) {
			out = in
		}
	}
	return out
}
