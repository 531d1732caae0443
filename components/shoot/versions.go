package shoot

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/version"
)

// The version rules of gardener-controller-manager's maintenance (Gardener's "Shoot Kubernetes and
// Operating System Versioning in Gardener" docs/usage/shoot-operations/shoot_versions.md), as pure
// functions of a CloudProfile's versions, the version in use and the time.

// Version classifications (Gardener's docs/usage/shoot-operations/shoot_versions.md). A version
// without one counts as supported: "Gardener can operate without version classifications"
// (Gardener's docs/usage/shoot-operations/shoot_versions.md).
const (
	classificationPreview    = "preview"
	classificationSupported  = "supported"
	classificationDeprecated = "deprecated"
)

// Machine image update strategies (Gardener's MachineImage in docs/api-reference/core.md).
const (
	strategyPatch = "patch"
	strategyMinor = "minor"
	strategyMajor = "major"
)

// offeredVersion is one version a CloudProfile offers: a Kubernetes version or a machine image
// version.
type offeredVersion struct {
	raw            string
	v              *version.Version
	classification string
	// expires is the expiration date; zero when the version does not expire.
	expires time.Time
}

func (o offeredVersion) preview() bool { return o.classification == classificationPreview }

// expired: "has an expiration date ... in the past" (Gardener's
// docs/usage/shoot-operations/shoot_versions.md).
func (o offeredVersion) expired(now time.Time) bool {
	return !o.expires.IsZero() && !now.Before(o.expires)
}

func (o offeredVersion) deprecated() bool { return o.classification == classificationDeprecated }

// parseOffered reads versions as a CloudProfile lists them; versions that do not parse are left
// out (they cannot be compared, and Gardener's API server refuses them anyway).
func parseOffered(list []offeredVersion) []offeredVersion {
	var out []offeredVersion
	for _, o := range list {
		v, err := version.ParseGeneric(o.raw)
		if err != nil {
			continue
		}
		o.v = v
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b offeredVersion) int {
		switch {
		case a.v.LessThan(b.v):
			return -1
		case b.v.LessThan(a.v):
			return 1
		}
		return 0
	})
	return out
}

// versionUpdate is what maintenance does to one version: the version to move to, and why in
// Gardener's words; Target is empty when nothing changes.
type versionUpdate struct {
	Target string
	Reason string
	// Forced is set when the version in use is expired or no longer offered: the update
	// happens "even if the owner has opted out of automatic cluster updates" (Gardener's
	// docs/usage/shoot-operations/shoot_versions.md).
	Forced bool
}

// findOffered returns the offered version equal to current.
func findOffered(offered []offeredVersion, current *version.Version) (offeredVersion, bool) {
	for _, o := range offered {
		if o.v.EqualTo(current) {
			return o, true
		}
	}
	return offeredVersion{}, false
}

// pick chooses among candidates newer than current (none preview: "a Shoot does not update
// (neither auto-update or force-update) to a preview version", Gardener's
// docs/usage/shoot-operations/shoot_versions.md). An automatic update never takes an expired
// version and prefers supported over deprecated versions; a forced one prefers versions that have
// not expired, and takes the latest expired one if all have (Gardener's
// docs/usage/shoot-operations/shoot_versions.md).
func pick(candidates []offeredVersion, current *version.Version, forced bool, now time.Time) (offeredVersion, bool) {
	var fresh, supported, expired []offeredVersion
	for _, c := range candidates {
		if c.preview() || !c.v.GreaterThan(current) {
			continue
		}
		if c.expired(now) {
			expired = append(expired, c)
			continue
		}
		fresh = append(fresh, c)
		if !c.deprecated() {
			supported = append(supported, c)
		}
	}
	last := func(l []offeredVersion) (offeredVersion, bool) {
		if len(l) == 0 {
			return offeredVersion{}, false
		}
		return l[len(l)-1], true
	}
	if o, ok := last(supported); ok {
		return o, true
	}
	if o, ok := last(fresh); ok {
		return o, true // all qualifying versions are deprecated: the latest deprecated one
	}
	if forced {
		return last(expired)
	}
	return offeredVersion{}, false
}

// assess sorts the offered versions and decides whether maintenance acts on current: by force
// when it is expired or no longer offered (Gardener's
// docs/usage/shoot-operations/shoot_versions.md), automatically when auto is set, not at all
// otherwise, nor for a version later than every offered one (the profile has not caught up with the
// landscape yet, both changed in one run).
func assess(current *version.Version, offered []offeredVersion, auto bool, now time.Time) (sorted []offeredVersion, forced, act bool) {
	sorted = parseOffered(offered)
	in, listed := findOffered(sorted, current)
	if !listed && !offersLater(sorted, current) {
		return sorted, false, false
	}
	forced = !listed || in.expired(now)
	return sorted, forced, auto || forced
}

// offersLater reports whether the profile offers a version later than current: a version it
// does not list but that is later than all it lists is one the profile has not caught up with,
// not one it dropped.
func offersLater(offered []offeredVersion, current *version.Version) bool {
	return slices.ContainsFunc(offered, func(o offeredVersion) bool { return o.v.GreaterThan(current) })
}

// sameMinor and sameMajor select offered versions relative to current.
func sameMinor(offered []offeredVersion, current *version.Version) []offeredVersion {
	return filter(offered, func(o offeredVersion) bool {
		return o.v.Major() == current.Major() && o.v.Minor() == current.Minor()
	})
}

func sameMajor(offered []offeredVersion, current *version.Version) []offeredVersion {
	return filter(offered, func(o offeredVersion) bool { return o.v.Major() == current.Major() })
}

func filter(offered []offeredVersion, keep func(offeredVersion) bool) []offeredVersion {
	var out []offeredVersion
	for _, o := range offered {
		if keep(o) {
			out = append(out, o)
		}
	}
	return out
}

// kubernetesUpdate is the maintenance of a Kubernetes version (Gardener's
// docs/usage/shoot-operations/shoot_versions.md): an automatic update moves to the latest eligible
// patch of the current minor; an expired version (or one the profile no longer offers, Gardener's
// docs/usage/shoot-operations/shoot_versions.md) is updated even without automatic updates, to the
// latest patch of its minor, or, already there, to the latest patch of the next minor (minor+1:
// "minor version jumps" are not allowed, Gardener's docs/usage/shoot-operations/shoot_versions.md).
// No next minor fails the maintenance.
func kubernetesUpdate(current string, offered []offeredVersion, auto bool, now time.Time) (versionUpdate, error) {
	cur, err := version.ParseGeneric(current)
	if err != nil {
		return versionUpdate{}, fmt.Errorf("kubernetes version %q: %w", current, err)
	}
	offered, forced, act := assess(cur, offered, auto, now)
	if !act {
		return versionUpdate{}, nil
	}
	reason := "Automatic update of Kubernetes version configured"
	if forced {
		reason = "Kubernetes version expired - force update required" // Gardener's docs/usage/shoot/shoot_maintenance.md
	}
	if o, ok := pick(sameMinor(offered, cur), cur, forced, now); ok {
		return versionUpdate{Target: o.raw, Reason: reason, Forced: forced}, nil
	}
	if !forced {
		return versionUpdate{}, nil
	}
	next := filter(offered, func(o offeredVersion) bool {
		return o.v.Major() == cur.Major() && o.v.Minor() == cur.Minor()+1
	})
	if o, ok := pick(next, cur, true, now); ok {
		return versionUpdate{Target: o.raw, Reason: reason, Forced: true}, nil
	}
	return versionUpdate{}, fmt.Errorf("kubernetes version %s is expired or no longer offered, and the cloud profile offers no later version of %d.%d or %d.%d to update to (minor versions cannot be skipped)",
		current, cur.Major(), cur.Minor(), cur.Major(), cur.Minor()+1)
}

// imageUpdate is the maintenance of a worker pool's machine image version by the image's
// update strategy (Gardener's MachineImage in docs/api-reference/core.md,
// docs/usage/shoot-operations/shoot_versions.md): patch keeps the minor, minor keeps the major,
// major takes the overall latest. An expired version is updated even without automatic updates;
// when the pool is already on the latest version its strategy allows, a forced update moves on to
// the next minor (patch) or major (minor) that has a qualifying version, skipping those that have
// none; with major it cannot move on and fails.
func imageUpdate(image, current string, offered []offeredVersion, strategy string, auto bool, now time.Time) (versionUpdate, error) {
	cur, err := version.ParseGeneric(current)
	if err != nil {
		return versionUpdate{}, fmt.Errorf("machine image %s version %q: %w", image, current, err)
	}
	if strategy == "" {
		strategy = strategyMajor // the default (Gardener's MachineImage in docs/api-reference/core.md)
	}
	offered, forced, act := assess(cur, offered, auto, now)
	if !act {
		return versionUpdate{}, nil
	}
	reason := fmt.Sprintf("Automatic update of the machine image version is configured (image update strategy: %s)", strategy) // Gardener's docs/usage/shoot/shoot_maintenance.md
	if forced {
		reason = "Machine image version expired - force update required"
	}
	var scope []offeredVersion
	switch strategy {
	case strategyPatch:
		scope = sameMinor(offered, cur)
	case strategyMinor:
		scope = sameMajor(offered, cur)
	default:
		scope = offered
	}
	// With major there is nowhere further to go: a force update "will fail if the latest
	// version in the CloudProfile for that image is expired" (Gardener's
	// docs/usage/shoot-operations/shoot_versions.md), rather than move to it.
	if o, ok := pick(scope, cur, forced && strategy != strategyMajor, now); ok {
		return versionUpdate{Target: o.raw, Reason: reason, Forced: forced}, nil
	}
	if !forced {
		return versionUpdate{}, nil
	}
	if strategy == strategyMajor {
		return versionUpdate{}, fmt.Errorf("machine image %s: version %s is expired and the cloud profile offers no later version that is not: either the machine image %q is reaching end of life and migration to another machine image is required or there is a misconfiguration in the CloudProfile", image, current, image) // Gardener's docs/usage/shoot/shoot_maintenance.md
	}
	// The next higher minor (patch) or major (minor) with a qualifying version.
	for _, o := range offered {
		if !o.v.GreaterThan(cur) || o.preview() {
			continue
		}
		var group []offeredVersion
		if strategy == strategyPatch {
			group = sameMinor(offered, o.v)
		} else {
			group = sameMajor(offered, o.v)
		}
		if t, ok := pick(group, cur, true, now); ok {
			return versionUpdate{Target: t.raw, Reason: reason, Forced: true}, nil
		}
	}
	return versionUpdate{}, fmt.Errorf("machine image %s: version %s is expired and the cloud profile offers no later version to update to", image, current)
}
