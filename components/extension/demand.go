package extension

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The Gardener resources gardener-controller-manager reads to decide a seed's installations.
var (
	registrationsRef = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerregistrations"}
	installationsRef = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}
	shootsRef        = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	seedsRef         = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	bucketsRef       = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "backupbuckets"}
	entriesRef       = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "backupentries"}
	// domainsRef are the garden's domain Secrets, of which gardener-controller-manager reads the
	// copies in seed-<name> (gardenerutils.ReadGardenSecrets); only their annotations are read.
	domainsRef = render.ListRef{Version: "v1", Resource: "secrets", Namespace: "garden",
		LabelSelector: "gardener.cloud/role in (internal-domain,default-domain)"}
)

// The domain Secrets' role label and annotations (Gardener's "Configuration"
// docs/operations/configuration.md).
const (
	labelRole            = "gardener.cloud/role"
	roleInternalDomain   = "internal-domain"
	roleDefaultDomain    = "default-domain"
	annotationDNSDomain  = "dns.gardener.cloud/domain"
	annotationDNSProvide = "dns.gardener.cloud/provider"
)

// garden is what the virtual garden holds for the decision, read once per rendering.
type garden struct {
	state gardenState
	// seeds are the live Seeds by name.
	seeds map[string]*unstructured.Unstructured
	// installations are the live ControllerInstallations, for the parts that follow them.
	installations []unstructured.Unstructured
}

// readGarden reads what gardener-controller-manager reads to decide the installations of the
// extension's seeds (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md,
// pkg/controllermanager/controller/controllerregistration/seed/reconciler.go at Gardener
// v1.120.0): the ControllerRegistrations (this extension's as the landscape renders it), the
// ControllerInstallations, the Shoots, the BackupBuckets and BackupEntries and the garden's
// domains, and the Seeds.
func readGarden(in render.Input, v Values) (*garden, error) {
	list := func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		ref.Cluster = v.VirtualCluster.Name
		items, err := in.Listed(ref)
		if err != nil {
			return nil, fmt.Errorf("list the %s of the virtual garden: %w", ref.Resource, err)
		}
		return items, nil
	}
	g := &garden{seeds: map[string]*unstructured.Unstructured{}}
	registrations, err := list(registrationsRef)
	if err != nil {
		return nil, err
	}
	for i := range registrations {
		if registrations[i].GetName() != v.Name {
			g.state.Registrations = append(g.state.Registrations, registrationFromLive(&registrations[i]))
		}
	}
	g.state.Registrations = append(g.state.Registrations, ownRegistration(v))
	if g.installations, err = list(installationsRef); err != nil {
		return nil, err
	}
	for i := range g.installations {
		g.state.Installations = append(g.state.Installations, installationFromLive(&g.installations[i]))
	}
	shoots, err := list(shootsRef)
	if err != nil {
		return nil, err
	}
	for i := range shoots {
		g.state.Shoots = append(g.state.Shoots, shootFromLive(&shoots[i]))
	}
	seeds, err := list(seedsRef)
	if err != nil {
		return nil, err
	}
	for i := range seeds {
		g.seeds[seeds[i].GetName()] = &seeds[i]
	}
	buckets, err := list(bucketsRef)
	if err != nil {
		return nil, err
	}
	for i := range buckets {
		g.state.Buckets = append(g.state.Buckets, gcmBackupBucket{Name: buckets[i].GetName(),
			SeedName: str(buckets[i].Object, "spec", "seedName"), ProviderType: str(buckets[i].Object, "spec", "provider", "type")})
	}
	entries, err := list(entriesRef)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		g.state.Entries = append(g.state.Entries, gcmBackupEntry{Name: entries[i].GetName(),
			SeedName: str(entries[i].Object, "spec", "seedName"), BucketName: str(entries[i].Object, "spec", "bucketName")})
	}
	domains, err := list(domainsRef)
	if err != nil {
		return nil, err
	}
	g.state.Internal, g.state.Defaults = domainsOf(domains)
	return g, nil
}

// domainsOf are the internal domain and the default domains of the garden's domain Secrets, as
// ReadGardenSecrets takes them: Secrets without a domain or provider annotation do not count; of
// several internal domains, the last listed wins.
func domainsOf(secrets []unstructured.Unstructured) (*gcmDomain, []gcmDomain) {
	sort.Slice(secrets, func(i, j int) bool { return secrets[i].GetName() < secrets[j].GetName() })
	var internal *gcmDomain
	var defaults []gcmDomain
	for _, s := range secrets {
		a := s.GetAnnotations()
		d := gcmDomain{Provider: a[annotationDNSProvide], Domain: a[annotationDNSDomain]}
		if d.Provider == "" || d.Domain == "" {
			continue
		}
		switch s.GetLabels()[labelRole] {
		case roleInternalDomain:
			internal = &d
		case roleDefaultDomain:
			defaults = append(defaults, d)
		}
	}
	return internal, defaults
}

// ownRegistration is this extension's ControllerRegistration as the engine renders it, with the
// defaults gardener-apiserver adds (SetDefaults_ControllerResource: a globally enabled Extension
// is enabled automatically for shoots).
func ownRegistration(v Values) gcmRegistration {
	r := gcmRegistration{Name: v.Name, Policy: v.Policy}
	if len(v.SeedSelector) > 0 {
		r.SeedSelector = &metav1.LabelSelector{MatchLabels: v.SeedSelector}
	}
	for _, res := range v.Resources {
		g := gcmResource{Kind: res.Kind, Type: res.Type}
		if res.Kind == controllerregistration.KindExtension && res.GloballyEnabled != nil && *res.GloballyEnabled {
			g.AutoEnable = []string{clusterTypeShoot}
		}
		if res.WorkerlessSupported != nil {
			g.WorkerlessSupported = *res.WorkerlessSupported
		}
		r.Resources = append(r.Resources, g)
	}
	return r
}

// registrationFromLive reads a live ControllerRegistration.
func registrationFromLive(u *unstructured.Unstructured) gcmRegistration {
	r := gcmRegistration{Name: u.GetName(), Deleting: u.GetDeletionTimestamp() != nil, Policy: str(u.Object, "spec", "deployment", "policy")}
	if sel, ok, _ := unstructured.NestedMap(u.Object, "spec", "deployment", "seedSelector"); ok {
		var s metav1.LabelSelector
		if runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &s) == nil {
			r.SeedSelector = &s
		}
	}
	for _, item := range slice(u.Object, "spec", "resources") {
		res := gcmResource{Kind: str(item, "kind"), Type: str(item, "type"), AutoEnable: strs(item, "autoEnable")}
		res.WorkerlessSupported, _, _ = unstructured.NestedBool(item, "workerlessSupported")
		if global, _, _ := unstructured.NestedBool(item, "globallyEnabled"); global && res.Kind == kinds.ExtensionKind && !contains(res.AutoEnable, clusterTypeShoot) {
			res.AutoEnable = append(res.AutoEnable, clusterTypeShoot)
		}
		r.Resources = append(r.Resources, res)
	}
	return r
}

// installationFromLive reads a live ControllerInstallation.
func installationFromLive(u *unstructured.Unstructured) gcmInstallation {
	i := gcmInstallation{Name: u.GetName(), Registration: str(u.Object, "spec", "registrationRef", "name"),
		Seed: str(u.Object, "spec", "seedRef", "name"), Deleting: u.GetDeletionTimestamp() != nil}
	for _, c := range slice(u.Object, "status", "conditions") {
		if str(c, "type") == conditionRequired && str(c, "status") == "True" {
			i.Required = true
		}
	}
	return i
}

// shootFromLive reads a live or rendered Shoot.
func shootFromLive(u *unstructured.Unstructured) gcmShoot {
	s := gcmShoot{
		Name: u.GetNamespace() + "/" + u.GetName(), SeedName: str(u.Object, "spec", "seedName"), StatusSeedName: str(u.Object, "status", "seedName"),
		ProviderType: str(u.Object, "spec", "provider", "type"), NetworkingType: str(u.Object, "spec", "networking", "type"),
		DNSDomain: str(u.Object, "spec", "dns", "domain"),
	}
	for _, w := range slice(u.Object, "spec", "provider", "workers") {
		pool := gcmWorker{ImageName: str(w, "machine", "image", "name"), BackupProvider: str(w, "controlPlane", "backup", "provider")}
		_, pool.ControlPlane, _ = unstructured.NestedMap(w, "controlPlane")
		for _, cr := range slice(w, "cri", "containerRuntimes") {
			pool.ContainerRuntimes = append(pool.ContainerRuntimes, str(cr, "type"))
		}
		s.Workers = append(s.Workers, pool)
	}
	for _, p := range slice(u.Object, "spec", "dns", "providers") {
		primary, _, _ := unstructured.NestedBool(p, "primary")
		s.DNSProviders = append(s.DNSProviders, gcmDNSProvider{Type: str(p, "type"), Primary: primary})
	}
	s.Extensions = extensionsOf(u.Object)
	return s
}

// extensionsOf reads .spec.extensions of a Seed or Shoot.
func extensionsOf(obj map[string]any) []gcmExtension {
	var out []gcmExtension
	for _, e := range slice(obj, "spec", "extensions") {
		disabled, _, _ := unstructured.NestedBool(e, "disabled")
		out = append(out, gcmExtension{Type: str(e, "type"), Disabled: disabled})
	}
	return out
}

// seedOf is the Seed the decision is made for: as the seed's entry declares it (the Seed the
// apply leaves behind), and being deleted when the live one is.
func seedOf(s Seed, live *unstructured.Unstructured) gcmSeed {
	spec := map[string]any{"spec": s.Spec}
	out := gcmSeed{
		Name: s.Name, Labels: s.Labels, ProviderType: provider(s),
		DNSProviderType: orSpec(s.DNSProvider, s.Spec, "dns", "provider", "type"),
		BackupProvider:  orSpec(s.BackupProvider, s.Spec, "backup", "provider"),
		Extensions:      extensionsOf(spec),
	}
	out.Deleting = live != nil && live.GetDeletionTimestamp() != nil
	return out
}

// declaredShoot stands for the shoots the landscape declares on a seed that are not applied yet
// (the entry's has_shoots and shoot_types): a shoot on the seed that requires what every shoot
// there requires, and shoot_types besides.
const declaredShoot = "declared in the landscape"

// withDeclaredShoots adds the seed's declared shoots to the live ones, when it declares any.
func withDeclaredShoots(g gardenState, s Seed) gardenState {
	if !s.HasShoots && len(s.ShootTypes) == 0 {
		return g
	}
	g.Shoots = append(append([]gcmShoot(nil), g.Shoots...), gcmShoot{Name: declaredShoot, SeedName: s.Name})
	return g
}

// str reads a string at path of a nested map, "" when absent.
func str(obj any, path ...string) string {
	m, ok := obj.(map[string]any)
	if !ok {
		return ""
	}
	s, _, _ := unstructured.NestedString(m, path...)
	return s
}

// strs reads a list of strings at path.
func strs(obj map[string]any, path ...string) []string {
	s, _, _ := unstructured.NestedStringSlice(obj, path...)
	return s
}

// slice reads a list of objects at path.
func slice(obj any, path ...string) []map[string]any {
	m, ok := obj.(map[string]any)
	if !ok {
		return nil
	}
	items, _, _ := unstructured.NestedSlice(m, path...)
	var out []map[string]any
	for _, i := range items {
		if im, ok := i.(map[string]any); ok {
			out = append(out, im)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// joinSorted joins a set's items.
func joinSorted(s set) string { return strings.Join(s.sorted(), ", ") }
