package extension

import (
	"fmt"
	"sort"
	"strings"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
)

// Installation is the decision for one seed: whether the extension is installed there, why, and
// the names its installation gets.
type Installation struct {
	// Seed is the seed's name.
	Seed string
	// Cluster is the seed's cluster block.
	Cluster string
	// Name is the ControllerInstallation's name, <registration>-<seed>. Gardener generates a
	// random suffix instead; a declarative landscape needs a name that is the same on every run.
	Name string
	// Namespace is the seed namespace the chart is installed into: extension-<installation>
	// (Gardener's "gardenlet" docs/concepts/gardenlet.md).
	Namespace string
	// Installed says whether the extension is installed on the seed.
	Installed bool
	// Reason says why it is installed or not, for plans and composites.
	Reason string
}

// Installations decides, for every seed in order, whether the extension is installed there, the
// way gardener-controller-manager decides which ControllerInstallations a seed needs (Gardener's
// "Gardener Controller Manager" docs/concepts/controller-manager.md): a seed whose labels the seed
// selector does not match never gets it (Gardener's "ControllerRegistration"
// docs/extensions/registration.md); otherwise the policy decides (Gardener's
// docs/extensions/registration.md): Always installs it, AlwaysExceptNoShoots only where shoots run,
// and OnDemand only where one of the registration's kinds and types is in use. It does not validate
// the values; Objects does. What a seed's shoots use is what the seed declares (shoot_types,
// has_shoots) together with what the Shoots scheduled to it in the virtual garden use; an
// installation that is no longer wanted stays while it reports Required.
func Installations(v Values) []Installation {
	out := make([]Installation, 0, len(v.Seeds))
	for _, s := range v.Seeds {
		name := v.Name + "-" + s.Name
		i := Installation{Seed: s.Name, Cluster: s.Cluster.Name, Name: name, Namespace: NamespacePrefix + name}
		d := v.live[s.Name]
		if d == nil {
			d = &liveDemand{}
		}
		i.Installed, i.Reason = decide(v, s, d)
		if !i.Installed && d.StillRequired {
			i.Installed, i.Reason = true, i.Reason+", but its ControllerInstallation still reports Required: extension resources on the seed use it"
		}
		out = append(out, i)
	}
	return out
}

// NamespacePrefix starts the seed namespace of every ControllerInstallation (Gardener's
// docs/concepts/gardenlet.md).
const NamespacePrefix = "extension-"

// decide applies the seed selector and the policy to one seed.
func decide(v Values, s Seed, d *liveDemand) (bool, string) {
	if keys := unmatched(v.SeedSelector, s.Labels); len(keys) > 0 {
		return false, fmt.Sprintf("the seed's labels do not match the seed selector (%s)", strings.Join(keys, ", "))
	}
	switch v.Policy {
	case controllerregistration.PolicyAlways:
		return true, "policy Always installs it on every selected seed"
	case controllerregistration.PolicyAlwaysExceptNoShoots:
		if s.HasShoots {
			return true, "policy AlwaysExceptNoShoots and shoots run on the seed"
		}
		if len(d.Shoots) > 0 {
			return true, fmt.Sprintf("policy AlwaysExceptNoShoots and shoot %s runs on the seed", d.Shoots[0])
		}
		return false, "policy AlwaysExceptNoShoots and no shoots run on the seed"
	}
	if id, why := required(v, s, d); id != "" {
		return true, fmt.Sprintf("policy OnDemand and %s %s", id, why)
	}
	return false, "policy OnDemand and none of the registration's kinds and types is used on the seed"
}

// unmatched returns the selector's keys, sorted, whose value the labels do not carry.
func unmatched(selector, labels map[string]string) []string {
	var keys []string
	for k, want := range selector {
		if got, ok := labels[k]; !ok || got != want {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// required returns the first of the registration's kinds and types the seed needs, and why, or
// "" when it needs none. A seed needs what its shoots use (Gardener's
// docs/concepts/controller-manager.md) and, for a primary registration, the kinds the seed itself
// uses (seedKinds).
func required(v Values, s Seed, d *liveDemand) (string, string) {
	shoot := map[string]bool{}
	for _, t := range s.ShootTypes {
		shoot[t] = true
	}
	seed := seedKinds(s)
	for _, r := range v.Resources {
		id := r.Kind + "/" + r.Type
		global := r.Kind == controllerregistration.KindExtension && r.GloballyEnabled != nil && *r.GloballyEnabled
		switch {
		case shoot[id]:
			return id, "is used by shoots on the seed"
		case d.Types[id] != "":
			return id, "is used by shoot " + d.Types[id] + " on the seed"
		case global && s.HasShoots:
			// A globally enabled Extension is used by every shoot unless it opts out (Gardener's
			// ControllerResource in docs/api-reference/core.md).
			return id, "is globally enabled and shoots run on the seed"
		case global && len(d.Shoots) > d.Disabled[r.Type]:
			return id, "is globally enabled and shoots on the seed do not disable it"
		case seed[id] && r.Primary:
			return id, "is used by the seed itself"
		}
	}
	return "", ""
}

// seedKinds are the kinds and types a seed needs for itself: BackupBucket and BackupEntry of its
// backup provider, DNSRecord of its DNS provider, and ControlPlane of its provider type. Gardener's
// docs/concepts/controller-manager.md says the seed's provider and DNS provider types count;
// Gardener's docs/concepts/gardenlet.md that backups need the backup provider's extension. That the
// provider type maps to the ControlPlane kind is our choice: it is the kind a provider extension
// serves for the provider type on every seed.
func seedKinds(s Seed) map[string]bool {
	out := map[string]bool{}
	if s.BackupProvider != "" {
		out["BackupBucket/"+s.BackupProvider] = true
		out["BackupEntry/"+s.BackupProvider] = true
	}
	if s.DNSProvider != "" {
		out["DNSRecord/"+s.DNSProvider] = true
	}
	if p := provider(s); p != "" {
		out["ControlPlane/"+p] = true
	}
	return out
}
