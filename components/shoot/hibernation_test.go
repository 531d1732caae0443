package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// berlinTime is a time in the schedules' location; 2026-11-21 is a Saturday in winter time
// (UTC+1).
func berlinTime(t *testing.T, s string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	at, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	require.NoError(t, err)
	return at
}

func nightly(enabled bool) *Hibernation {
	h := &Hibernation{Enabled: enabled}
	h.Schedules = append(h.Schedules, schedule{Start: "0 20 * * *", End: "0 6 * * *", Location: "Europe/Berlin"})
	return h
}

// liveShoot is a Shoot with the nightly schedule as the engine wrote it (declared: the landscape's
// hibernation.enabled then, none when empty) and as gardener-controller-manager left it (enabled,
// flipped last at lastTrigger, never when empty), created a month before 2026-11-21.
func liveShoot(t *testing.T, declared string, enabled bool, lastTrigger string, mutate ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "dev", "namespace": "garden-dev", "generation": int64(3), "uid": "7d2b3c4e-0000-4000-8000-000000000003"},
		"spec": map[string]any{"hibernation": map[string]any{"enabled": enabled, "schedules": []any{
			map[string]any{"start": "0 20 * * *", "end": "0 6 * * *", "location": "Europe/Berlin"},
		}}},
	}}
	u.SetCreationTimestamp(metav1.NewTime(berlinTime(t, "2026-10-21 12:00")))
	if declared != "" {
		u.SetAnnotations(map[string]string{AnnotationHibernationDeclared: declared})
	}
	if lastTrigger != "" {
		_ = unstructured.SetNestedField(u.Object, berlinTime(t, lastTrigger).UTC().Format(time.RFC3339), "status", "lastHibernationTriggerTime")
	}
	for _, m := range mutate {
		m(u)
	}
	return u
}

func TestDecideHibernation(t *testing.T) {
	const (
		start = `hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin)'s start`
		end   = `hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin)'s end`
	)
	failed := func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "Failed", "status", "lastOperation", "state")
		_ = unstructured.SetNestedField(u.Object, int64(3), "status", "observedGeneration")
		_ = unstructured.SetNestedField(u.Object, "v1.120.0", "status", "gardener", "version")
	}
	deleting := func(u *unstructured.Unstructured) {
		ts := metav1.NewTime(berlinTime(t, "2026-11-21 19:00"))
		u.SetDeletionTimestamp(&ts)
	}
	startAt9 := func(u *unstructured.Unstructured) { // the schedule before the landscape changed it
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"start": "0 21 * * *", "end": "0 6 * * *", "location": "Europe/Berlin"}}, "spec", "hibernation", "schedules")
	}
	type prediction struct{ at, description string }
	for _, tc := range []struct {
		name        string
		hibernation *Hibernation
		live        *unstructured.Unstructured
		// observed is when the Shoot was read, at the evaluation time when empty.
		observed, at string
		deadline     time.Duration
		// wantEnabled is the control plane's hibernation, wantOnShoot the Shoot's.
		wantEnabled, wantOnShoot bool
		wantDeclared             string
		wantNote                 string
		wantPredictions          []prediction
		wantNext                 string
	}{
		{
			name: "without schedules the landscape's hibernation.enabled decides", hibernation: &Hibernation{Enabled: true}, at: "2026-11-21 21:00",
			live:        liveShoot(t, "", false, ""),
			wantEnabled: true, wantOnShoot: true,
		},
		{
			name: "a new shoot starts as declared; the loop finds no trigger before the creation", hibernation: nightly(false), at: "2026-11-21 21:00",
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
			wantNext:        "2026-11-22 06:00",
		},
		{
			name: "at the start the engine flips nothing: the Shoot awake, the control plane follows it", hibernation: nightly(false), at: "2026-11-21 20:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00"),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
		},
		{
			name: "gardener-controller-manager flipped the Shoot: the control plane hibernates, the Shoot keeps its value", hibernation: nightly(false), at: "2026-11-21 20:01",
			live:        liveShoot(t, "false", true, "2026-11-21 20:00"),
			wantEnabled: true, wantOnShoot: true, wantDeclared: "false",
			wantNote:        "hibernation: the Shoot says hibernated (spec.hibernation.enabled true, gardener-controller-manager's hibernation schedule trigger at 2026-11-21T19:00:00Z)",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
		},
		{
			name: "plan --at after the start: the loop will have flipped the Shoot, the control plane hibernates", hibernation: nightly(false),
			observed: "2026-11-21 12:00", at: "2026-11-21 20:30",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00"),
			wantEnabled: true, wantOnShoot: false, wantDeclared: "false",
			wantNote: "gardener-controller-manager's " + start + " at 2026-11-21T19:00:00Z hibernates the shoot: spec.hibernation.enabled = true",
			wantPredictions: []prediction{
				{"2026-11-21 20:00", start + " at 2026-11-21T19:00:00Z hibernates the shoot: spec.hibernation.enabled = true"},
				{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"},
			},
		},
		{
			name: "plan --at exactly at the start: the loop runs 100 ms later", hibernation: nightly(false),
			observed: "2026-11-21 12:00", at: "2026-11-21 20:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00"),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
		},
		{
			name: "plan --at two days later: the latest trigger counts", hibernation: nightly(false),
			observed: "2026-11-21 12:00", at: "2026-11-23 07:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00"),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-23 20:00", start + " hibernates the shoot: spec.hibernation.enabled = true"}},
		},
		{
			name: "woken up by hand after the start (kubectl, dashboard): it stays awake until the next trigger", hibernation: nightly(false), at: "2026-11-21 22:00",
			live:        liveShoot(t, "false", false, "2026-11-21 20:00"),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
		},
		{
			name: "hibernation.enabled changed in the landscape: a deliberate hibernation, written to the Shoot", hibernation: nightly(true), at: "2026-11-21 10:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00"),
			wantEnabled: true, wantOnShoot: true, wantDeclared: "true",
			wantPredictions: []prediction{{"2026-11-21 20:00", start + " hibernates the shoot: spec.hibernation.enabled = true"}},
		},
		{
			name: "schedules added to an existing shoot do not catch up on last night", hibernation: nightly(false), at: "2026-11-21 10:00",
			live: liveShoot(t, "", false, "", func(u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "spec", "hibernation", "schedules")
			}),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-21 20:00", start + " hibernates the shoot: spec.hibernation.enabled = true"}},
		},
		{
			name: "a changed schedule whose start passed within the trigger deadline: the loop catches up when the Shoot changes", hibernation: nightly(false), at: "2026-11-21 20:30",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00", startAt9),
			wantEnabled: true, wantOnShoot: false, wantDeclared: "false",
			wantNote: "gardener-controller-manager's the changed schedules' " + start + " at 2026-11-21T19:00:00Z, within the trigger deadline, hibernates the shoot: spec.hibernation.enabled = true",
			wantPredictions: []prediction{
				{"2026-11-21 20:30", "the changed schedules' " + start + " at 2026-11-21T19:00:00Z, within the trigger deadline, hibernates the shoot: spec.hibernation.enabled = true"},
				{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"},
			},
		},
		{
			name: "a changed schedule whose start passed before the trigger deadline: no catching up", hibernation: nightly(false), at: "2026-11-21 23:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00", startAt9),
			deadline:    2 * time.Hour,
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
			wantPredictions: []prediction{{"2026-11-22 06:00", end + " wakes the shoot up: spec.hibernation.enabled = false"}},
		},
		{
			name: "a failed shoot is left alone by the loop", hibernation: nightly(false), observed: "2026-11-21 12:00", at: "2026-11-21 21:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00", failed),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
		},
		{
			name: "a shoot in deletion is left alone by the loop", hibernation: nightly(false), observed: "2026-11-21 12:00", at: "2026-11-21 21:00",
			live:        liveShoot(t, "false", false, "2026-11-21 06:00", deleting),
			wantEnabled: false, wantOnShoot: false, wantDeclared: "false",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := berlinTime(t, tc.at)
			observed := now
			if tc.observed != "" {
				observed = berlinTime(t, tc.observed)
			}
			deadline := tc.deadline
			if deadline == 0 {
				deadline = 2 * time.Hour
			}
			d, err := decideHibernation(hibernationInput{declared: tc.hibernation, live: tc.live, observed: observed, now: now, deadline: deadline})
			require.NoError(t, err)
			assert.Equal(t, tc.wantEnabled, d.enabled, "control plane")
			assert.Equal(t, tc.wantOnShoot, d.onShoot, "Shoot")
			assert.Equal(t, tc.wantDeclared, d.declared, "declared")
			assert.Equal(t, tc.wantNote, d.note, "note")
			var got []prediction
			for _, p := range d.predictions {
				got = append(got, prediction{p.at.In(now.Location()).Format("2006-01-02 15:04"), p.description})
			}
			assert.Equal(t, tc.wantPredictions, got, "predictions")
			if tc.wantNext != "" {
				assert.True(t, berlinTime(t, tc.wantNext).Add(gcmTriggerDelay).Equal(d.next), "next %s", d.next)
			}
		})
	}
}

func TestHibernationErrors(t *testing.T) {
	none := nightly(false)
	none.Schedules[0].Start, none.Schedules[0].End = "", ""
	_, err := decideHibernation(hibernationInput{declared: none, now: time.Now()})
	require.ErrorContains(t, err, "hibernation schedule 1 has neither start nor end")

	every := nightly(false)
	every.Schedules[0].Start = "@every 1h"
	_, err = decideHibernation(hibernationInput{declared: every, now: time.Now()})
	require.ErrorContains(t, err, "@every intervals are not supported")
}

// In a plan for a time after a schedule's start, the control plane hibernates because
// gardener-controller-manager will have flipped the Shoot; the Shoot keeps its live value, the
// flip is a prediction, and the parts say why they change.
func TestPlanAtHibernatesTheControlPlaneNotTheShoot(t *testing.T) {
	b, err := newBuilder("dev", values(func(v *Values) { v.Hibernation = nightly(false) }))
	require.NoError(t, err)
	live := liveShoot(t, "false", false, "2026-11-21 06:00")
	out, err := b.render(render.Input{
		Now: berlinTime(t, "2026-11-21 20:30"), ObservedAt: berlinTime(t, "2026-11-21 12:00"),
		Observe: observingByName(map[string]*unstructured.Unstructured{"shoots/garden-local/dev": live}),
	})
	require.NoError(t, err)
	shoot := partObject(t, out, "shoot", "Shoot")
	enabled, _, _ := unstructured.NestedBool(shoot.Object, "spec", "hibernation", "enabled")
	assert.False(t, enabled, "the Shoot keeps the live value: the flip is gardener-controller-manager's")
	assert.Equal(t, "false", shoot.GetAnnotations()[AnnotationHibernationDeclared])
	for _, p := range out.Components {
		if p.Name == "shoot" {
			assert.Equal(t, []string{"spec.hibernation.enabled"}, p.Objects[0].Yield, "a flip between the plan and the write stays")
		}
	}
	for _, p := range out.Components {
		if p.Name != "etcd_main" {
			continue
		}
		replicas, _, _ := unstructured.NestedInt64(p.Objects[0].Object.Object, "spec", "replicas")
		assert.Zero(t, replicas, "the control plane hibernates")
		assert.Contains(t, p.Note, "gardener-controller-manager's hibernation schedule 1")
	}
	cluster := partObject(t, out, "cluster", "Cluster")
	enabled, _, _ = unstructured.NestedBool(cluster.Object, "spec", "shoot", "spec", "hibernation", "enabled")
	assert.True(t, enabled, "the control plane's copy of the Shoot is as it will be")
	require.NotEmpty(t, out.Predictions)
	assert.Equal(t, "shoot-hibernation", out.Predictions[0].Controller)
	assert.Equal(t, berlinTime(t, "2026-11-21 20:00").UTC(), out.Predictions[0].At.UTC())
	assert.Equal(t, berlinTime(t, "2026-11-22 06:00").Add(gcmTriggerDelay).UTC(), out.Revisit.UTC(), "the daemon comes back at the next trigger")
}
