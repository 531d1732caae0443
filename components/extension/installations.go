package extension

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// Installation is the extension on one of its seeds: the ControllerInstallation
// gardener-controller-manager keeps there, and what it will do about it, by its rule (gcm.go).
type Installation struct {
	// Seed is the seed's name.
	Seed string
	// Live is the seed's ControllerInstallation of the registration that is not being deleted;
	// nil when there is none.
	Live *unstructured.Unstructured
	// Wanted says gardener-controller-manager wants the registration on the seed: it creates the
	// installation, or keeps it. Reason says why or why not.
	Wanted bool
	Reason string
	// Blocked is gardener-controller-manager's error when it cannot decide the seed's
	// installations at all (a kind and type no registration serves): it then changes none.
	Blocked error
}

// Installed says whether the extension is (or will be) installed on the seed.
func (i Installation) Installed() bool {
	if i.Blocked != nil {
		return i.Live != nil
	}
	return i.Wanted
}

// Installations decides, for every seed of the extension in order, what gardener-controller-manager
// does with the registration there (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md, pkg/controllermanager/controller/controllerregistration/seed/reconciler.go
// at Gardener v1.120.0): from the garden as it is, with the seed as its entry declares it and the
// shoots its entry declares for the landscape's shoots not applied yet (has_shoots,
// shoot_types).
func Installations(v Values, g *garden) []Installation {
	out := make([]Installation, 0, len(v.Seeds))
	for _, s := range v.Seeds {
		i := Installation{Seed: s.Name, Live: liveInstallation(g.installations, v.Name, s.Name)}
		seed := seedOf(s, g.seeds[s.Name])
		state := withDeclaredShoots(g.state, s)
		declared := set{}
		declared.add(s.ShootTypes...)
		d := decideSeed(seed, state, declared)
		if d.Err != nil && (len(d.Unserved) == 0 || g.seeds[s.Name] != nil) {
			// A kind and type no registration serves stops gardener-controller-manager once it
			// reconciles the seed; before the Seed exists, the landscape may still register
			// them in the same apply (the extension sees only its own registration and the live
			// ones).
			i.Blocked = d.Err
			out = append(out, i)
			continue
		}
		i.Wanted = d.Wanted[v.Name]
		i.Reason = reason(v, seed, state, declared, d)
		out = append(out, i)
	}
	return out
}

// reason says why gardener-controller-manager wants the registration on the seed or not, in the
// order its rule tests: the policy, the kinds and types required there (and by whom), an
// installation that reports Required, the seed selector.
func reason(v Values, seed gcmSeed, g gardenState, declared set, d seedDecision) string {
	policy := v.Policy
	if policy == "" {
		policy = policyOnDemand
	}
	shoots := shootsOn(seed.Name, g.Shoots)
	if !d.Wanted[v.Name] {
		if keys := unmatched(v.SeedSelector, seed.Labels); len(keys) > 0 {
			return fmt.Sprintf("the seed's labels do not match the seed selector (%s)", strings.Join(keys, ", "))
		}
		switch policy {
		case policyAlwaysExceptNoShoots:
			return "policy AlwaysExceptNoShoots and no shoots are on the seed"
		case policyAlways:
			return "the seed is being deleted"
		}
		return "policy OnDemand and none of the registration's kinds and types is required on the seed"
	}
	switch {
	case policy == policyAlways && !seed.Deleting:
		return "policy Always installs it on every selected seed"
	case policy == policyAlwaysExceptNoShoots && len(shoots) > 0:
		return fmt.Sprintf("policy AlwaysExceptNoShoots and %s is on the seed", shootName(shoots[0]))
	}
	for _, r := range v.Resources {
		id := extensionID(r.Kind, r.Type)
		if d.Required[id] {
			return fmt.Sprintf("policy %s and %s is required by %s", policy, id, requiredBy(id, seed, g, declared))
		}
	}
	return "its ControllerInstallation reports Required: extension resources on the seed still use it"
}

// requiredBy names what requires the kind and type on the seed: the seed itself, one of its
// BackupBuckets or BackupEntries, or the first of its shoots (by the order listed).
func requiredBy(id string, seed gcmSeed, g gardenState, declared set) string {
	if kindTypesForSeed(seed, g.Registrations)[id] {
		return "the seed itself"
	}
	for _, b := range g.Buckets {
		if b.SeedName == seed.Name && extensionID(kinds.BackupBucketKind, b.ProviderType) == id {
			return "BackupBucket " + b.Name
		}
	}
	if kindTypesForBackupEntries(g.Entries, g.Buckets, seed.Name)[id] {
		return "a BackupEntry on the seed"
	}
	for _, s := range shootsOn(seed.Name, g.Shoots) {
		if s.Name == declaredShoot && declared[id] {
			return "the shoots the landscape declares on the seed"
		}
		if requiredForShoot(s, &seed, g.Registrations, g.Internal, externalDomainOf(s, g.Defaults))[id] {
			return shootName(s)
		}
	}
	return "the shoots the landscape declares on the seed"
}

// shootName names a shoot in reasons.
func shootName(s gcmShoot) string {
	if s.Name == declaredShoot {
		return "a shoot the landscape declares"
	}
	return "shoot " + s.Name
}

// unmatched returns the selector's keys, sorted, whose value the labels do not carry.
func unmatched(selector, labels map[string]string) []string {
	var keys []string
	for k, want := range selector {
		if got, ok := labels[k]; !ok || got != want {
			keys = append(keys, k)
		}
	}
	set := set{}
	set.add(keys...)
	return set.sorted()
}
