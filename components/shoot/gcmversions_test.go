package shoot

import (
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The clock of the ported tests: expiration dates in the future are ten minutes ahead, those in
// the past a day back, as in Gardener's tests.
var (
	gcmNow       = time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)
	inTheFuture  = gcmNow.Add(10 * time.Minute)
	inThePast    = gcmNow.AddDate(0, 0, -1)
	previewClass = classificationPreview
)

// k8sProfile is the Kubernetes versions of Gardener's maintainKubernetesVersion tests
// (pkg/controllermanager/controller/shoot/maintenance/reconciler_test.go at v1.120.0), in their
// order, changed by mutate (indexes as in those tests).
func k8sProfile(mutate func([]expirableVersion)) []expirableVersion {
	v := []expirableVersion{
		{version: "1.1.2"}, {version: "1.1.1"}, {version: "1.1.0"}, {version: "1.0.2"}, {version: "1.0.1"},
		{version: "1.0.0", expires: &inTheFuture}, {version: "2.0.0"},
	}
	if mutate != nil {
		mutate(v)
	}
	return v
}

// Gardener's cases of #maintainKubernetesVersion.
func TestMaintainKubernetesVersionAsGardenersTests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile []expirableVersion
		current string
		auto    bool
		want    string // the version after maintenance
		wantErr bool
	}{
		{name: "force update to the latest patch version", current: "1.0.1",
			profile: k8sProfile(func(v []expirableVersion) { v[4].expires = &inThePast }), want: "1.0.2"},
		{name: "force update to the latest non-preview patch version", current: "1.0.0",
			profile: k8sProfile(func(v []expirableVersion) { v[5].expires = &inThePast; v[3].classification = previewClass }), want: "1.0.1"},
		{name: "force update to the latest qualifying patch of the next minor", current: "1.0.2",
			profile: k8sProfile(func(v []expirableVersion) { v[3].expires = &inThePast }), want: "1.1.2"},
		{name: "force update to the latest qualifying patch of the next minor, auto update on", current: "1.0.2", auto: true,
			profile: k8sProfile(func(v []expirableVersion) { v[3].expires = &inThePast }), want: "1.1.2"},
		{name: "force update to the latest patch of the next minor although it expired", current: "1.0.2",
			profile: k8sProfile(func(v []expirableVersion) {
				for _, i := range []int{0, 1, 2, 3} {
					v[i].expires = &inThePast
				}
			}), want: "1.1.2"},
		{name: "force update impossible: only preview versions", current: "1.0.2", wantErr: true, want: "1.0.2",
			profile: k8sProfile(func(v []expirableVersion) {
				v[0].classification, v[1].classification, v[2].classification = previewClass, previewClass, previewClass
				v[3].expires = &inThePast
			})},
		{name: "auto update", current: "1.0.1", auto: true, profile: k8sProfile(nil), want: "1.0.2"},
		{name: "no force update needed, no auto update", current: "1.0.1",
			profile: k8sProfile(func(v []expirableVersion) { v[4].expires = &inTheFuture }), want: "1.0.1"},
		{name: "the version is no longer offered: the latest patch of its minor", current: "1.0.0", auto: true,
			profile: k8sProfile(nil)[:4], want: "1.0.2"},
		{name: "the version is no longer offered and the latest of its minor: the next minor", current: "1.0.2", auto: true,
			profile: k8sProfile(nil)[:2], want: "1.1.2"},
		{name: "never the next major", current: "1.1.2",
			profile: k8sProfile(func(v []expirableVersion) { v[3].expires = &inThePast }), want: "1.1.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := maintainKubernetesVersion(tc.current, tc.auto, tc.profile, gcmNow)
			if tc.wantErr {
				require.Error(t, err)
				require.NotNil(t, u)
				assert.False(t, u.ok)
				return
			}
			require.NoError(t, err)
			got := tc.current
			if u != nil {
				got = u.target
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// coreOS is the machine image of Gardener's #maintainMachineImages tests: versions 1.0.0 and
// 1.5.3 (the overall latest, expiring in the future), containerd, amd64, strategy major, changed
// by mutate.
func coreOS(mutate func(*profileImage)) profileImage {
	amd := []string{"amd64"}
	containerd := []imageCRI{{name: "containerd"}}
	img := profileImage{name: "CoreOs", strategy: strategyMajor, versions: []imageVersion{
		{expirableVersion: expirableVersion{version: "1.0.0"}, architectures: amd, cris: containerd},
		{expirableVersion: expirableVersion{version: "1.5.3", expires: &inTheFuture}, architectures: amd, cris: containerd},
	}}
	if mutate != nil {
		mutate(&img)
	}
	return img
}

// version adds a version to an image: amd64 and containerd unless said otherwise.
func withVersion(img *profileImage, v string, mutate ...func(*imageVersion)) {
	iv := imageVersion{expirableVersion: expirableVersion{version: v}, architectures: []string{"amd64"}, cris: []imageCRI{{name: "containerd"}}}
	for _, m := range mutate {
		m(&iv)
	}
	img.versions = append(img.versions, iv)
}

func expiresAt(t *time.Time) func(*imageVersion) { return func(v *imageVersion) { v.expires = t } }

// Gardener's cases of #maintainMachineImages: each pool's image version after maintenance.
func TestMaintainMachineImageAsGardenersTests(t *testing.T) {
	onlyVersions := func(strategy string, versions ...string) func(*profileImage) {
		return func(img *profileImage) {
			img.strategy, img.versions = strategy, nil
			for _, v := range versions {
				withVersion(img, v)
			}
		}
	}
	kubelet := func(v string) *semver.Version { return semver.MustParse(v) }
	for _, tc := range []struct {
		name    string
		image   profileImage
		pool    poolImage
		auto    bool
		want    string
		wantErr bool
	}{
		// UpdateStrategy: major
		{name: "major: to the overall latest", image: coreOS(nil), auto: true, want: "1.5.3"},
		{name: "major: the overall latest of the pool's architecture", auto: true, want: "1.1.2",
			pool: poolImage{architecture: "arm64"},
			image: coreOS(func(img *profileImage) {
				withVersion(img, "1.1.2", expiresAt(&inTheFuture), func(v *imageVersion) { v.architectures = []string{"arm64"} })
				withVersion(img, "1.7.1", expiresAt(&inTheFuture))
			})},
		{name: "major: first the latest patch of the minor", auto: true, want: "1.0.2",
			image: coreOS(func(img *profileImage) { withVersion(img, "1.0.2") })},
		{name: "major: force update of an expired version", want: "1.5.3",
			image: coreOS(func(img *profileImage) { img.versions[0].expires = &inThePast })},
		{name: "major: a version no longer offered moves to the latest patch of its minor first", auto: true, want: "1.0.1",
			image: coreOS(onlyVersions(strategyMajor, "1.1.1", "1.0.1"))},
		{name: "major: expired on the highest version fails instead of going down", auto: true, wantErr: true,
			pool: poolImage{version: "1.7.2"},
			image: coreOS(func(img *profileImage) {
				withVersion(img, "1.7.2", expiresAt(&inThePast), func(v *imageVersion) { v.classification = classificationDeprecated })
			})},
		{name: "major: already on the highest version", auto: true, pool: poolImage{version: "1.5.3"}, image: coreOS(nil), want: "1.5.3"},
		// UpdateStrategy: patch
		{name: "patch: to the latest patch of the minor", auto: true, want: "1.0.2",
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyPatch
				img.versions = img.versions[:1]
				withVersion(img, "1.0.2")
			})},
		{name: "patch: force update to the latest of the next higher minor", want: "1.2.5",
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyPatch
				img.versions[0].expires = &inThePast
				withVersion(img, "1.2.4")
				withVersion(img, "1.2.5")
				img.versions[1].version = "2.0.0" // not the next minor of major 1
			})},
		{name: "patch: skip a next minor with only preview versions", want: "1.3.0",
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyPatch
				img.versions = img.versions[:1]
				img.versions[0].expires = &inThePast
				withVersion(img, "1.2.5", func(v *imageVersion) { v.classification = previewClass })
				withVersion(img, "1.3.0")
			})},
		{name: "patch: take an expired next minor rather than skip it", want: "1.2.5",
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyPatch
				img.versions = img.versions[:1]
				img.versions[0].expires = &inThePast
				withVersion(img, "1.2.4", expiresAt(&inThePast))
				withVersion(img, "1.2.5", expiresAt(&inThePast))
				withVersion(img, "1.2.6", func(v *imageVersion) { v.classification = previewClass })
				withVersion(img, "1.3.0")
			})},
		// UpdateStrategy: minor
		{name: "minor: first the latest patch of the minor", auto: true, want: "1.0.2",
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyMinor
				withVersion(img, "1.0.2")
				withVersion(img, "2.0.0")
			})},
		{name: "minor: the latest of the major", auto: true, want: "1.5.3",
			image: coreOS(func(img *profileImage) { img.strategy = strategyMinor; withVersion(img, "2.2.5") })},
		{name: "minor: force update to the latest of the next major when on the latest of the major", want: "2.2.5",
			pool: poolImage{version: "1.5.3"},
			image: coreOS(func(img *profileImage) {
				img.strategy = strategyMinor
				img.versions[1].expires = &inThePast
				withVersion(img, "2.1.0")
				withVersion(img, "2.2.5")
				withVersion(img, "3.0.0")
			})},
		{name: "minor: already on the highest of the major, the next major is not taken", auto: true, want: "1.2.4",
			pool:  poolImage{version: "1.2.4"},
			image: coreOS(onlyVersions(strategyMinor, "1.2.4", "2.2.5"))},
		// Container runtime interfaces and kubelet versions
		{name: "a pool without cri is containerd's: a version that does not offer it is not taken", auto: true, want: "1.0.0",
			image: coreOS(func(img *profileImage) { img.versions[1].cris = []imageCRI{{name: "other"}} })},
		{name: "no auto update, no force update", want: "1.0.0", image: coreOS(nil)},
		{name: "a pool of another cri the current version alone offers", auto: true, want: "1.0.0",
			pool:  poolImage{cri: "other"},
			image: coreOS(func(img *profileImage) { img.versions[0].cris = []imageCRI{{name: "other"}} })},
		{name: "no version for the control plane's kubelet version", auto: true, want: "1.0.0",
			pool:  poolImage{kubelet: kubelet("1.26.0")},
			image: coreOS(func(img *profileImage) { img.versions[1].kubeletVersionConstraint = "< 1.26" })},
		{name: "a version for the control plane's kubelet version", auto: true, want: "1.5.3",
			pool:  poolImage{kubelet: kubelet("1.25.1")},
			image: coreOS(func(img *profileImage) { img.versions[1].kubeletVersionConstraint = "< 1.26" })},
		{name: "no version for the pool's own kubelet version", auto: true, want: "1.0.0",
			pool:  poolImage{kubelet: kubelet("1.25.0")},
			image: coreOS(func(img *profileImage) { img.versions[1].kubeletVersionConstraint = ">= 1.26" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := tc.pool
			if pool.name == "" {
				pool.name = "CoreOs"
			}
			if pool.version == "" {
				pool.version = "1.0.0"
			}
			if pool.architecture == "" {
				pool.architecture = "amd64"
			}
			if pool.kubelet == nil {
				pool.kubelet = kubelet("1.25.1")
			}
			u := maintainMachineImage(pool, tc.image, tc.auto, gcmNow)
			if tc.wantErr {
				require.NotNil(t, u)
				assert.False(t, u.ok, "a maintenance failure")
				return
			}
			got := pool.version
			if u != nil {
				require.True(t, u.ok, u.description)
				got = u.target
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// A worker pool's image the profile does not offer fails the images of every pool, as
// determineMachineImage's error does.
func TestMaintainImagesUnknownImage(t *testing.T) {
	v := values(nil)
	profile := &maintenanceProfile{images: []profileImage{coreOS(nil)}}
	assert.Nil(t, maintainImages(&v, profile, true, gcmNow))
}

// Gardener's cases of the version helpers that decide between supported, deprecated, preview and
// expired versions (pkg/apis/core/v1beta1/helper/cloudprofile_test.go at v1.120.0).
func TestVersionHelpersAsGardenersTests(t *testing.T) {
	deprecated := func(v string) expirableVersion {
		return expirableVersion{version: v, classification: classificationDeprecated}
	}
	for _, tc := range []struct {
		name     string
		fn       higherVersion
		versions []expirableVersion
		current  string
		want     string
	}{
		{"overall latest across majors", overallLatestForAutoUpdate,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.1.0"}, {version: "2.0.0"}}, "1.0.0", "2.0.0"},
		{"an older supported version before a newer deprecated one", overallLatestForAutoUpdate,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.1.0"}, deprecated("1.2.0")}, "1.0.0", "1.1.0"},
		{"the latest deprecated version when there is no supported one", overallLatestForAutoUpdate,
			[]expirableVersion{{version: "1.0.0"}, deprecated("1.1.0"), deprecated("1.2.0")}, "1.0.0", "1.2.0"},
		{"no preview or expired version for an automatic update", latestPatchForAutoUpdate,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.0.1", classification: previewClass}, {version: "1.0.2", expires: &inThePast}}, "1.0.0", ""},
		{"the next minor's latest non-expired version", forcefulToConsecutiveMinor,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.1.0"}, {version: "1.1.1", expires: &inThePast}, {version: "1.2.0"}}, "1.0.0", "1.1.0"},
		{"no consecutive minor", forcefulToConsecutiveMinor,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.2.0"}}, "1.0.0", ""},
		{"the next higher minor, not necessarily consecutive", forcefulToNextHigherMinor,
			[]expirableVersion{{version: "1.0.0"}, {version: "1.3.0"}, {version: "1.3.1"}, {version: "1.4.0"}}, "1.0.0", "1.3.1"},
		{"the next higher major", forcefulToNextHigherMajor,
			[]expirableVersion{{version: "1.0.0"}, {version: "3.1.0"}, {version: "3.2.0"}, {version: "4.0.0"}}, "1.0.0", "3.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fn(tc.versions, tc.current, gcmNow)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Gardener's cases of #maintainFeatureGatesForShoot and #maintainAdmissionPlugins: what the
// Kubernetes version does not support is removed, and said so in its words.
func TestMaintainFeatureGatesAndAdmissionPlugins(t *testing.T) {
	v := values(func(v *Values) {
		v.Kubernetes.Version = "1.32.0"
		v.Kubernetes.KubeAPIServer = &KubeAPIServer{FeatureGates: map[string]bool{"ZeroLimitedNominalConcurrencyShares": true, "WatchListClient": true, "NotAGate": true}}
		v.Kubernetes.KubeAPIServer.AdmissionPlugins = append(v.Kubernetes.KubeAPIServer.AdmissionPlugins,
			struct {
				Name                 string `json:"name"`
				Config               any    `json:"config"`
				Disabled             bool   `json:"disabled"`
				KubeconfigSecretName string `json:"kubeconfig_secret_name"`
			}{Name: "PersistentVolumeLabel"},
			struct {
				Name                 string `json:"name"`
				Config               any    `json:"config"`
				Disabled             bool   `json:"disabled"`
				KubeconfigSecretName string `json:"kubeconfig_secret_name"`
			}{Name: "PodNodeSelector"})
	})
	reasons := append(maintainFeatureGates(&v), maintainAdmissionPlugins(&v)...)
	assert.Equal(t, []string{
		`Removed feature gates from "spec.kubernetes.kubeAPIServer.featureGates" because they are not supported in Kubernetes version "1.32.0": NotAGate, ZeroLimitedNominalConcurrencyShares`,
		`Removed admission plugins from "spec.kubernetes.kubeAPIServer.admissionPlugins" because they are not supported in Kubernetes version "1.32.0": PersistentVolumeLabel`,
	}, reasons)
	assert.Equal(t, map[string]bool{"WatchListClient": true}, v.Kubernetes.KubeAPIServer.FeatureGates)
	require.Len(t, v.Kubernetes.KubeAPIServer.AdmissionPlugins, 1)
	assert.Equal(t, "PodNodeSelector", v.Kubernetes.KubeAPIServer.AdmissionPlugins[0].Name)
	assert.Empty(t, maintainFeatureGates(&v), "nothing left to remove")
}
