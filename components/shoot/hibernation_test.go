package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// berlin is the schedule's location; 2026-11-21 is a Saturday in winter time (UTC+1).
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
	h.Schedules = append(h.Schedules, struct {
		Start    string `json:"start"`
		End      string `json:"end"`
		Location string `json:"location"`
	}{Start: "0 20 * * *", End: "0 6 * * *", Location: "Europe/Berlin"})
	return h
}

// liveShoot is a Shoot as the engine left it: the annotations it wrote and the hibernation it set.
func liveShoot(trigger, declared string, enabled bool, mutate ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "dev", "namespace": "garden-dev"},
		"spec":     map[string]any{"hibernation": map[string]any{"enabled": enabled}},
	}}
	annotations := map[string]string{}
	if trigger != "" {
		annotations[AnnotationHibernationTrigger] = trigger
		annotations[AnnotationHibernationSchedules] = scheduleFingerprint(nightly(false))
	}
	if declared != "" {
		annotations[AnnotationHibernationDeclared] = declared
	}
	u.SetAnnotations(annotations)
	for _, m := range mutate {
		m(u)
	}
	return u
}

func TestDecideHibernation(t *testing.T) {
	const (
		today0600 = "2026-11-21T05:00:00Z" // 06:00 in Berlin
		today2000 = "2026-11-21T19:00:00Z" // 20:00 in Berlin
		yday2000  = "2026-11-20T19:00:00Z"
	)
	failed := func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "Failed", "status", "lastOperation", "state")
	}
	deleting := func(u *unstructured.Unstructured) {
		ts := metav1.NewTime(berlinTime(t, "2026-11-21 19:00"))
		u.SetDeletionTimestamp(&ts)
	}
	for _, tc := range []struct {
		name          string
		hibernation   *Hibernation
		at            string
		live          *unstructured.Unstructured
		wantEnabled   bool
		wantTrigger   string
		wantDeclared  string
		wantNote      string
		wantNext      string
		wantErrSubstr string
	}{
		{
			name: "a new shoot starts as declared; earlier triggers are history", hibernation: nightly(false), at: "2026-11-21 21:00",
			wantEnabled: false, wantTrigger: today2000, wantDeclared: "false", wantNext: "2026-11-22T05:00:00Z",
		},
		{
			name: "the start comes due: the shoot hibernates, the note names the schedule", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot(today0600, "false", false),
			wantEnabled: true, wantTrigger: today2000, wantDeclared: "false",
			wantNote: `hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin) at 2026-11-21T20:00:00+01:00 hibernates the shoot`,
		},
		{
			name: "between triggers nothing changes", hibernation: nightly(false), at: "2026-11-21 19:59",
			live:        liveShoot(today0600, "false", false),
			wantEnabled: false, wantTrigger: today0600, wantDeclared: "false", wantNext: today2000,
		},
		{
			name: "the end comes due: the shoot wakes up", hibernation: nightly(false), at: "2026-11-22 06:00",
			live:        liveShoot(today2000, "false", true),
			wantEnabled: false, wantTrigger: "2026-11-22T05:00:00Z", wantDeclared: "false",
			wantNote: `hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin) at 2026-11-22T06:00:00+01:00 wakes the shoot up`,
		},
		{
			name: "woken up by hand after the start (kubectl, dashboard): it stays awake until the next trigger", hibernation: nightly(false), at: "2026-11-21 22:00",
			live:        liveShoot(today2000, "false", false),
			wantEnabled: false, wantTrigger: today2000, wantDeclared: "false",
		},
		{
			name: "hibernation.enabled changed in the landscape overrides the schedule until its next trigger", hibernation: nightly(true), at: "2026-11-21 10:00",
			live:        liveShoot(today0600, "false", false),
			wantEnabled: true, wantTrigger: today0600, wantDeclared: "true",
		},
		{
			name: "schedules added to an existing shoot do not catch up on last night", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot("", "", false),
			wantEnabled: false, wantTrigger: today2000, wantDeclared: "false",
		},
		{
			name: "a failed shoot is left alone", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot(today0600, "false", false, failed),
			wantEnabled: false, wantTrigger: today0600, wantDeclared: "false",
		},
		{
			name: "a shoot in deletion is left alone", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot(today0600, "false", false, deleting),
			wantEnabled: false, wantTrigger: today0600, wantDeclared: "false",
		},
		{
			name: "a trigger missed (no apply at 20:00) is carried out by the next plan", hibernation: nightly(false), at: "2026-11-22 02:00",
			live:        liveShoot(yday2000, "false", false), // woken by hand yesterday, nothing applied since
			wantEnabled: true, wantTrigger: today2000, wantDeclared: "false",
			wantNote: `hibernation schedule 1 (start "0 20 * * *", end "0 6 * * *" in Europe/Berlin) at 2026-11-21T20:00:00+01:00 hibernates the shoot`,
		},
		{
			name: "a trigger of a shoot already in that state only records it", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot(today0600, "false", true),
			wantEnabled: true, wantTrigger: today2000, wantDeclared: "false",
		},
		{
			name: "an edited schedule does not carry out triggers from before the edit", hibernation: nightly(false), at: "2026-11-21 21:00",
			live: liveShoot(today0600, "false", false, func(u *unstructured.Unstructured) {
				a := u.GetAnnotations()
				a[AnnotationHibernationSchedules] = "fingerprint-of-the-schedule-before"
				u.SetAnnotations(a)
			}),
			wantEnabled: false, wantTrigger: today2000, wantDeclared: "false",
		},
		{
			name: "a mangled trigger annotation is taken as history, not as a trigger to catch up on", hibernation: nightly(false), at: "2026-11-21 21:00",
			live:        liveShoot("yesterday evening", "false", false),
			wantEnabled: false, wantTrigger: today2000, wantDeclared: "false",
		},
		{
			name: "without schedules hibernation.enabled decides", hibernation: &Hibernation{Enabled: true}, at: "2026-11-21 21:00",
			live:        liveShoot("", "", false),
			wantEnabled: true,
		},
		{
			name: "a schedule with neither start nor end is refused", at: "2026-11-21 21:00",
			hibernation: func() *Hibernation {
				h := nightly(false)
				h.Schedules[0].Start, h.Schedules[0].End = "", ""
				return h
			}(),
			wantErrSubstr: "hibernation schedule 1 has neither start nor end",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := decideHibernation(tc.hibernation, berlinTime(t, tc.at), tc.live)
			if tc.wantErrSubstr != "" {
				require.ErrorContains(t, err, tc.wantErrSubstr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantEnabled, d.enabled, "enabled")
			assert.Equal(t, tc.wantTrigger, d.trigger, "trigger")
			assert.Equal(t, tc.wantDeclared, d.declared, "declared")
			if tc.wantDeclared != "" {
				assert.Equal(t, scheduleFingerprint(tc.hibernation), d.schedules, "schedules")
			}
			assert.Equal(t, tc.wantNote, d.note, "note")
			if tc.wantNext != "" {
				assert.Equal(t, tc.wantNext, d.next.UTC().Format(time.RFC3339), "next")
			}
		})
	}
}

func TestHibernationTriggersAtTheSameInstantWakeTheShoot(t *testing.T) {
	h := &Hibernation{}
	for _, s := range []struct{ start, end string }{{"0 20 * * *", ""}, {"", "0 20 * * *"}} {
		h.Schedules = append(h.Schedules, struct {
			Start    string `json:"start"`
			End      string `json:"end"`
			Location string `json:"location"`
		}{Start: s.start, End: s.end})
	}
	live := liveShoot("2026-11-21T06:00:00Z", "false", true, func(u *unstructured.Unstructured) {
		a := u.GetAnnotations()
		a[AnnotationHibernationSchedules] = scheduleFingerprint(h)
		u.SetAnnotations(a)
	})
	d, err := decideHibernation(h, time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC), live)
	require.NoError(t, err)
	assert.False(t, d.enabled)
	assert.Contains(t, d.note, "schedule 2")
	assert.Contains(t, d.note, "in UTC", "schedules without a location are read in UTC")
}

func TestHibernationRefusesIntervals(t *testing.T) {
	h := nightly(false)
	h.Schedules[0].Start = "@every 1h"
	_, err := decideHibernation(h, time.Now(), nil)
	require.ErrorContains(t, err, "@every intervals are not supported")
}
