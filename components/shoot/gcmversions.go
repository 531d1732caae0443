package shoot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// The version rules of gardener-controller-manager's maintenance loop, ported from Gardener
// v1.120.0: which version a Shoot's Kubernetes version or a worker pool's machine image version
// moves to (pkg/apis/core/v1beta1/helper/cloudprofile.go: GetLatestVersionForPatchAutoUpdate,
// GetLatestVersionForMinorAutoUpdate, GetOverallLatestVersionForAutoUpdate,
// GetVersionForForcefulUpdateToConsecutiveMinor, GetVersionForForcefulUpdateToNextHigherMinor,
// GetVersionForForcefulUpdateToNextHigherMajor and their filters), as pure functions of a
// CloudProfile's versions, the version in use and the time the loop runs at (its expiration
// checks read the clock).

// Version classifications (Gardener's VersionClassification in docs/api-reference/core.md).
const (
	classificationPreview    = "preview"
	classificationDeprecated = "deprecated"
)

// Machine image update strategies (Gardener's MachineImage in docs/api-reference/core.md); the
// API defaults major.
const (
	strategyPatch = "patch"
	strategyMinor = "minor"
	strategyMajor = "major"
)

// expirableVersion is Gardener's ExpirableVersion: a Kubernetes or machine image version a
// CloudProfile offers.
type expirableVersion struct {
	version        string
	classification string
	// expires is the expiration date; nil when the version does not expire.
	expires *time.Time
}

// versionPredicate filters a version out when it returns true (VersionPredicate).
type versionPredicate func(v expirableVersion, sv *semver.Version) bool

// expiredAt is Gardener's ExpirationDateExpired at the time t: the expiration date is t or
// before it.
func (v expirableVersion) expiredAt(t time.Time) bool {
	return v.expires != nil && !t.UTC().Before(v.expires.UTC())
}

// latestQualifyingVersion is the latest version no predicate filters out, never a preview
// (GetLatestQualifyingVersion).
func latestQualifyingVersion(versions []expirableVersion, predicates ...versionPredicate) (*expirableVersion, error) {
	var latest *expirableVersion
	latestSemver := &semver.Version{}
outer:
	for _, v := range versions {
		if v.classification == classificationPreview {
			continue
		}
		sv, err := semver.NewVersion(v.version)
		if err != nil {
			return nil, fmt.Errorf("error while parsing version '%s': %s", v.version, err.Error())
		}
		for _, p := range predicates {
			if p(v, sv) {
				continue outer
			}
		}
		if sv.GreaterThan(latestSemver) {
			latestSemver, latest = sv, &v
		}
	}
	return latest, nil
}

// The filters (FilterDifferentMajorMinorVersionAndLowerPatchVersionsOfSameMinor and its kin):
// each returns true for a version to leave out.
func filterOutsideTildeRange(current *semver.Version) versionPredicate {
	constraint, err := semver.NewConstraint("~ " + current.String())
	return func(_ expirableVersion, v *semver.Version) bool { return err != nil || !constraint.Check(v) }
}

func filterNonConsecutiveMinor(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool {
		return v.Major() != current.Major() || current.Minor()+1 != v.Minor()
	}
}

func filterDifferentMajor(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool { return v.Major() != current.Major() }
}

func filterEqualAndSmallerMajor(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool { return v.Major() <= current.Major() }
}

func filterEqualAndSmallerMinor(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool { return v.Minor() <= current.Minor() }
}

func filterSameVersion(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool { return v.Equal(current) }
}

func filterLowerVersion(current *semver.Version) versionPredicate {
	return func(_ expirableVersion, v *semver.Version) bool { return v.LessThan(current) }
}

func filterExpired(now time.Time) versionPredicate {
	return func(v expirableVersion, _ *semver.Version) bool { return v.expiredAt(now) }
}

func filterDeprecated() versionPredicate {
	return func(v expirableVersion, _ *semver.Version) bool { return v.classification == classificationDeprecated }
}

// higherVersion picks a version to move to from current; "" when there is none
// (GetHigherVersion).
type higherVersion func(versions []expirableVersion, current string, now time.Time) (string, error)

// versionForAutoUpdate is the latest version above current that has not expired, preferring
// ones that are not deprecated (getVersionForAutoUpdate).
func versionForAutoUpdate(versions []expirableVersion, current *semver.Version, now time.Time, predicates ...versionPredicate) (string, error) {
	base := append([]versionPredicate{filterExpired(now), filterSameVersion(current), filterLowerVersion(current)}, predicates...)
	v, err := latestQualifyingVersion(versions, append(slices.Clone(base), filterDeprecated())...)
	if err != nil || v != nil {
		return versionOf(v), err
	}
	v, err = latestQualifyingVersion(versions, base...)
	return versionOf(v), err
}

func versionOf(v *expirableVersion) string {
	if v == nil {
		return ""
	}
	return v.version
}

// latestPatchForAutoUpdate is the latest patch of current's minor (GetLatestVersionForPatchAutoUpdate).
func latestPatchForAutoUpdate(versions []expirableVersion, current string, now time.Time) (string, error) {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	return versionForAutoUpdate(versions, cur, now, filterOutsideTildeRange(cur))
}

// latestMinorForAutoUpdate is the latest patch of current's minor, else the latest of its major
// (GetLatestVersionForMinorAutoUpdate).
func latestMinorForAutoUpdate(versions []expirableVersion, current string, now time.Time) (string, error) {
	if v, err := latestPatchForAutoUpdate(versions, current, now); v != "" || err != nil {
		return v, err
	}
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	return versionForAutoUpdate(versions, cur, now, filterDifferentMajor(cur))
}

// overallLatestForAutoUpdate is the latest patch of current's minor, else the overall latest
// (GetOverallLatestVersionForAutoUpdate).
func overallLatestForAutoUpdate(versions []expirableVersion, current string, now time.Time) (string, error) {
	if v, err := latestPatchForAutoUpdate(versions, current, now); v != "" || err != nil {
		return v, err
	}
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	return versionForAutoUpdate(versions, cur, now)
}

// forcefulToConsecutiveMinor is the latest version of the next minor, preferring one that has
// not expired (GetVersionForForcefulUpdateToConsecutiveMinor).
func forcefulToConsecutiveMinor(versions []expirableVersion, current string, now time.Time) (string, error) {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	predicates := []versionPredicate{filterDifferentMajor(cur), filterNonConsecutiveMinor(cur)}
	v, err := latestQualifyingVersion(versions, append(slices.Clone(predicates), filterExpired(now))...)
	if err != nil || v != nil {
		return versionOf(v), err
	}
	v, err = latestQualifyingVersion(versions, predicates...)
	return versionOf(v), err
}

// forcefulToNextHigherMinor is the latest version of the next higher minor of current's major
// with a qualifying version (GetVersionForForcefulUpdateToNextHigherMinor).
func forcefulToNextHigherMinor(versions []expirableVersion, current string, now time.Time) (string, error) {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	return machineImageForceUpdate(versions, (*semver.Version).Minor, cur, now, filterDifferentMajor(cur), filterEqualAndSmallerMinor(cur))
}

// forcefulToNextHigherMajor is the latest version of the next higher major with a qualifying
// version (GetVersionForForcefulUpdateToNextHigherMajor).
func forcefulToNextHigherMajor(versions []expirableVersion, current string, now time.Time) (string, error) {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return "", err
	}
	return machineImageForceUpdate(versions, (*semver.Version).Major, cur, now, filterEqualAndSmallerMajor(cur))
}

// machineImageForceUpdate prefers a version that has not expired in the next higher minor or
// major, and takes an expired one of the very next minor or major rather than skip it
// (getVersionForMachineImageForceUpdate).
func machineImageForceUpdate(versions []expirableVersion, part func(*semver.Version) uint64, current *semver.Version, now time.Time, predicates ...versionPredicate) (string, error) {
	found, next, err := qualifyingVersionForNextHigher(versions, part, current, append(slices.Clone(predicates), filterExpired(now))...)
	if err != nil {
		return "", err
	}
	skippedNext := false
	if found != nil {
		sv, err := semver.NewVersion(found.version)
		if err != nil {
			return "", err
		}
		skippedNext = part(sv) > next
	}
	if found == nil || skippedNext {
		if found, _, err = qualifyingVersionForNextHigher(versions, part, current, predicates...); err != nil || found == nil {
			return "", err
		}
	}
	return found.version, nil
}

// qualifyingVersionForNextHigher is the latest qualifying version of the lowest minor or major
// above current's that has one, and that next minor or major, whether it has a qualifying
// version or not (GetQualifyingVersionForNextHigher).
func qualifyingVersionForNextHigher(versions []expirableVersion, part func(*semver.Version) uint64, current *semver.Version, predicates ...versionPredicate) (*expirableVersion, uint64, error) {
	sorted := slices.Clone(versions)
	parsed := map[string]*semver.Version{}
	for _, v := range sorted {
		sv, err := semver.NewVersion(v.version)
		if err != nil {
			return nil, 0, err
		}
		parsed[v.version] = sv
	}
	slices.SortFunc(sorted, func(a, b expirableVersion) int { return parsed[a.version].Compare(parsed[b.version]) })
	var (
		highest *semver.Version
		found   expirableVersion
		next    uint64
		nextSet bool
	)
outer:
	for _, v := range sorted {
		sv := parsed[v.version]
		if part(sv) > part(current) && (part(sv) < next || !nextSet) {
			next, nextSet = part(sv), true
		}
		if v.classification == classificationPreview {
			continue
		}
		for _, p := range predicates {
			if p(v, sv) {
				continue outer
			}
		}
		if highest != nil && part(sv) > part(highest) {
			break
		}
		highest, found = sv, v
	}
	if highest == nil {
		return nil, next, nil
	}
	return &found, next, nil
}

// versionForStrategy moves current up by the automatic rule, or, when it is expired and already
// the latest that rule allows, by the forceful one; "" when it stays (determineVersionForStrategy).
func versionForStrategy(versions []expirableVersion, current string, auto, force higherVersion, expired bool, now time.Time) (string, error) {
	v, err := auto(versions, current, now)
	if err != nil {
		return "", fmt.Errorf("failed to determine a higher patch version for automatic update: %w", err)
	}
	if v != "" || !expired {
		return v, nil
	}
	v, err = force(versions, current, now)
	if err != nil {
		return "", fmt.Errorf("failed to determine version for forceful update: %w", err)
	}
	if v == "" {
		return "", fmt.Errorf("cannot perform forceful update of expired version %q. No suitable version found in CloudProfile - this is most likely a misconfiguration of the CloudProfile", current)
	}
	return v, nil
}

// versionUpdate is the outcome of maintaining one version (updateResult): the version moved to,
// or why it could not move.
type versionUpdate struct {
	// target is the new version; empty when the update failed.
	target      string
	description string
	reason      string
	ok          bool
}

// maintainKubernetesVersion maintains a Kubernetes version, the control plane's or a pool's
// (maintainKubernetesVersion with shouldKubernetesVersionBeUpdated and
// determineKubernetesVersion): the latest patch of its minor, by force to the next minor when
// its version expired or is not offered any more. Nil when it stays.
func maintainKubernetesVersion(current string, auto bool, offered []expirableVersion, now time.Time) (*versionUpdate, error) {
	exists, version, err := kubernetesVersionOffered(offered, current)
	if err != nil {
		return nil, err
	}
	var reason string
	expired := false
	switch {
	case !exists:
		reason, expired = "Version does not exist in CloudProfile", true
	case version.expiredAt(now):
		reason, expired = "Kubernetes version expired - force update required", true
	case auto:
		reason = "Automatic update of Kubernetes version configured"
	default:
		return nil, nil
	}
	target, err := versionForStrategy(offered, current, latestPatchForAutoUpdate, forcefulToConsecutiveMinor, expired, now)
	if err != nil {
		return &versionUpdate{description: fmt.Sprintf("could not determine higher suitable version than %q: %v", current, err), reason: reason}, err
	}
	if target == "" {
		return nil, nil
	}
	return &versionUpdate{target: target, description: fmt.Sprintf("Updated Kubernetes version from %q to %q", current, target), reason: reason, ok: true}, nil
}

// kubernetesVersionOffered finds current among the offered versions by semantic version
// (KubernetesVersionExistsInCloudProfile).
func kubernetesVersionOffered(offered []expirableVersion, current string) (bool, expirableVersion, error) {
	cur, err := semver.NewVersion(normalizeVersion(current))
	if err != nil {
		return false, expirableVersion{}, err
	}
	for _, v := range offered {
		sv, err := semver.NewVersion(normalizeVersion(v.version))
		if err != nil {
			return false, expirableVersion{}, err
		}
		if sv.Equal(cur) {
			return true, v, nil
		}
	}
	return false, expirableVersion{}, nil
}

// normalizeVersion drops a leading v and any suffix such as -rc1 (Normalize in
// pkg/utils/version/version.go).
func normalizeVersion(v string) string {
	v = strings.ReplaceAll(v, "v", "")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	return v
}

// profileImage is a machine image of a CloudProfile (MachineImage).
type profileImage struct {
	name string
	// strategy is the update strategy; the API defaults major.
	strategy string
	versions []imageVersion
}

// imageVersion is one version of a machine image (MachineImageVersion).
type imageVersion struct {
	expirableVersion
	architectures []string
	cris          []imageCRI
	// kubeletVersionConstraint, when set, is the kubelet versions the image supports.
	kubeletVersionConstraint string
}

// imageCRI is a container runtime interface an image version supports, with its runtimes.
type imageCRI struct {
	name     string
	runtimes []string
}

// poolImage is what maintenance reads of a worker pool.
type poolImage struct {
	name, version string
	architecture  string
	cri           string
	// kubelet is the pool's Kubernetes version (CalculateEffectiveKubernetesVersion).
	kubelet *semver.Version
}

// maintainMachineImage maintains a worker pool's machine image version
// (maintainMachineImages): the profile's versions of its image for its architecture, container
// runtime interface (containerd when unset) and kubelet version, moved by the image's update
// strategy, by force when its version expired or is not among them. Nil when it stays.
func maintainMachineImage(pool poolImage, image profileImage, auto bool, now time.Time) *versionUpdate {
	versions := filterImageVersions(image.versions, pool)
	strategy := cmp.Or(image.strategy, strategyMajor)
	var reason string
	expired := false
	i := slices.IndexFunc(versions, func(v imageVersion) bool { return image.name == pool.name && v.version == pool.version })
	switch {
	case i < 0:
		reason, expired = "Version does not exist in CloudProfile", true
	case versions[i].expiredAt(now):
		reason, expired = fmt.Sprintf("Machine image version expired - force update required (image update strategy: %s)", strategy), true
	case auto:
		reason = fmt.Sprintf("Automatic update of the machine image version is configured (image update strategy: %s)", strategy)
	default:
		return nil
	}
	expirable := make([]expirableVersion, len(versions))
	for j, v := range versions {
		expirable[j] = v.expirableVersion
	}
	auto2, force := imageStrategy(strategy, pool)
	target, err := versionForStrategy(expirable, pool.version, auto2, force, expired, now)
	if err != nil {
		err = fmt.Errorf("failed to determine the target version for maintenance of machine image %q with strategy %q: %w", image.name, strategy, err)
		return &versionUpdate{description: fmt.Sprintf("failed to update machine image %q: %s", pool.name, err.Error()), reason: reason}
	}
	if target == "" {
		return nil
	}
	return &versionUpdate{target: target, description: fmt.Sprintf("Updated machine image %q from %q to %q", pool.name, pool.version, target), reason: reason, ok: true}
}

// imageStrategy is the automatic and the forceful rule of an update strategy
// (determineMachineImageVersion).
func imageStrategy(strategy string, pool poolImage) (higherVersion, higherVersion) {
	switch strategy {
	case strategyPatch:
		return latestPatchForAutoUpdate, forcefulToNextHigherMinor
	case strategyMinor:
		return latestMinorForAutoUpdate, forcefulToNextHigherMajor
	}
	return overallLatestForAutoUpdate, func([]expirableVersion, string, time.Time) (string, error) {
		return "", fmt.Errorf("either the machine image %q is reaching end of life and migration to another machine image is required or there is a misconfiguration in the CloudProfile. If it is the latter, make sure the machine image in the CloudProfile has at least one version that is not expired, not in preview and greater or equal to the current Shoot image version %q", pool.name, pool.version)
	}
}

// filterImageVersions keeps the versions a pool can run (filterForArchitecture, filterForCRI,
// filterForKubeleteVersionConstraint).
func filterImageVersions(versions []imageVersion, pool poolImage) []imageVersion {
	cri := cmp.Or(pool.cri, "containerd")
	var out []imageVersion
	for _, v := range versions {
		if !slices.Contains(v.architectures, pool.architecture) {
			continue
		}
		if !slices.ContainsFunc(v.cris, func(c imageCRI) bool { return c.name == cri }) {
			continue
		}
		if c := v.kubeletVersionConstraint; c != "" && pool.kubelet != nil {
			if constraint, err := semver.NewConstraint(c); err == nil && !constraint.Check(pool.kubelet) {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}
