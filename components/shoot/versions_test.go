package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var maintenanceNow = time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)

// offer builds a CloudProfile's versions: "1.31.3" supported, "1.31.4:deprecated",
// "1.31.5:preview", "1.30.9:supported:expired" (expired a day ago), "1.31.1::expired".
func offer(specs ...string) []offeredVersion {
	var out []offeredVersion
	for _, s := range specs {
		parts := append(splitColon(s), "", "", "")
		o := offeredVersion{raw: parts[0], classification: parts[1]}
		if parts[2] == "expired" {
			o.expires = maintenanceNow.Add(-24 * time.Hour)
		} else if parts[2] == "expires" {
			o.expires = maintenanceNow.Add(24 * time.Hour)
		}
		out = append(out, o)
	}
	return out
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func TestKubernetesUpdate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		current string
		offered []offeredVersion
		auto    bool
		want    versionUpdate
		wantErr string
	}{
		{
			name: "auto update: the latest supported patch of the minor, over a higher deprecated one (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.31.1", auto: true,
			offered: offer("1.31.1:supported", "1.31.3:supported", "1.31.4:deprecated", "1.31.5:preview", "1.32.0:supported"),
			want:    versionUpdate{Target: "1.31.3", Reason: "Automatic update of Kubernetes version configured"},
		},
		{
			name: "auto update: all qualifying versions deprecated, the latest deprecated", current: "1.31.1", auto: true,
			offered: offer("1.31.1:supported", "1.31.2:deprecated", "1.31.3:deprecated"),
			want:    versionUpdate{Target: "1.31.3", Reason: "Automatic update of Kubernetes version configured"},
		},
		{
			name: "auto update never to an expired or preview version (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.31.1", auto: true,
			offered: offer("1.31.1:supported", "1.31.2:supported:expired", "1.31.3:preview"),
		},
		{
			name: "no automatic update without opting in", current: "1.31.1", auto: false,
			offered: offer("1.31.1:supported", "1.31.3:supported"),
		},
		{
			name: "an expired version is updated even without opting in (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.31.1", auto: false,
			offered: offer("1.31.1:deprecated:expired", "1.31.2:supported", "1.31.3:supported:expired"),
			want:    versionUpdate{Target: "1.31.2", Reason: "Kubernetes version expired - force update required", Forced: true},
		},
		{
			name: "a version the profile no longer offers is force-updated (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.31.0", auto: false,
			offered: offer("1.31.1:supported"),
			want:    versionUpdate{Target: "1.31.1", Reason: "Kubernetes version expired - force update required", Forced: true},
		},
		{
			name: "already the latest patch and expired: the latest patch of minor+1 (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.24.12", auto: true,
			offered: offer("1.24.12:deprecated:expired", "1.25.9:supported", "1.25.10:supported", "1.26.3:supported"),
			want:    versionUpdate{Target: "1.25.10", Reason: "Kubernetes version expired - force update required", Forced: true},
		},
		{
			name: "all qualifying versions expired: the latest expired one (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.24.11", auto: true,
			offered: offer("1.24.11:deprecated:expired", "1.24.12:deprecated:expired", "1.24.13:deprecated:expired"),
			want:    versionUpdate{Target: "1.24.13", Reason: "Kubernetes version expired - force update required", Forced: true},
		},
		{
			name: "a version later than all the profile lists is one it has not caught up with: no update", current: "1.31.5", auto: false,
			offered: offer("1.31.1:supported", "1.31.3:supported"),
		},
		{
			name: "no consecutive minor: the maintenance fails, minor versions are never skipped (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.24.12", auto: true,
			offered: offer("1.24.12:deprecated:expired", "1.26.3:supported"),
			wantErr: "offers no later version of 1.24 or 1.25",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kubernetesUpdate(tc.current, tc.offered, tc.auto, maintenanceNow)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestImageUpdate(t *testing.T) {
	offered := offer("1.0.0", "1.0.3", "1.1.0:preview", "1.2.0", "1.2.1", "2.0.0")
	auto := func(s string) string {
		return "Automatic update of the machine image version is configured (image update strategy: " + s + ")"
	}
	const forced = "Machine image version expired - force update required"
	for _, tc := range []struct {
		name     string
		current  string
		offered  []offeredVersion
		strategy string
		auto     bool
		want     versionUpdate
		wantErr  string
	}{
		{name: "patch: the latest patch of the minor", current: "1.0.0", offered: offered, strategy: "patch", auto: true, want: versionUpdate{Target: "1.0.3", Reason: auto("patch")}},
		{name: "minor: the latest minor and patch of the major", current: "1.0.0", offered: offered, strategy: "minor", auto: true, want: versionUpdate{Target: "1.2.1", Reason: auto("minor")}},
		{name: "major (the default): the overall latest", current: "1.0.0", offered: offered, strategy: "", auto: true, want: versionUpdate{Target: "2.0.0", Reason: auto("major")}},
		{name: "no automatic update without opting in", current: "1.0.0", offered: offered, strategy: "major", auto: false},
		{
			name: "patch, expired on the latest patch: the next higher minor with a qualifying version, skipping preview-only 1.1 (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.0.3",
			offered: offer("1.0.3::expired", "1.1.0:preview", "1.2.0", "1.2.1:deprecated"), strategy: "patch", auto: false,
			want: versionUpdate{Target: "1.2.0", Reason: forced, Forced: true},
		},
		{
			name: "minor, expired on the latest of the major: the next higher major (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "1.2.1",
			offered: offer("1.2.1::expired", "2.0.0", "2.1.0", "3.0.0"), strategy: "minor", auto: false,
			want: versionUpdate{Target: "2.1.0", Reason: forced, Forced: true},
		},
		{
			name: "major, expired, and only expired versions later: the force update fails rather than move to one (Gardener's docs/usage/shoot-operations/shoot_versions.md)", current: "2.0.0",
			offered: offer("2.0.0::expired", "2.1.0::expired"), strategy: "major", auto: false,
			wantErr: "reaching end of life",
		},
		{
			name: "major, expired and the latest: the force update fails (Gardener's docs/usage/shoot-operations/shoot_versions.md, docs/usage/shoot/shoot_maintenance.md)", current: "2.0.0",
			offered: offer("1.0.0", "2.0.0::expired"), strategy: "major", auto: true,
			wantErr: "reaching end of life",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := imageUpdate("gardenlinux", tc.current, tc.offered, tc.strategy, tc.auto, maintenanceNow)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
