package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/images"
)

// schedule is one hibernation schedule as the landscape declares it.
type schedule = struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Location string `json:"location"`
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return at
}

// The cases of Gardener's own unit tests of the hibernation loop
// (pkg/controllermanager/controller/shoot/hibernation/reconciler_test.go at v1.120.0): whether a
// run at now flips the Shoot, to what, and when the loop runs next.
func TestHibernationRunAsGardenersTests(t *testing.T) {
	const (
		everyDayAt2      = "00 02 * * 1,2,3,4,5,6,0"
		everyDayAt7      = "00 07 * * 1,2,3,4,5,6,0"
		everyWeekDayAt8  = "00 08 * * 1,2,3,4,5"
		everyWeekDayAt19 = "00 19 * * 1,2,3,4,5"
		weekDayAt2       = "2022-04-12T02:00:00Z"
		weekDayAt7       = "2022-04-12T07:00:00Z"
		weekDayAt19      = "2022-04-12T19:00:00Z"
		noDeadline       = time.Duration(-1)
		shortDeadline    = 10 * time.Second
		longDeadline     = 10 * time.Hour
	)
	at := func(base string, offset time.Duration) time.Time { return mustTime(t, base).Add(offset) }
	daily := []schedule{{Start: everyDayAt7, End: everyDayAt2}}
	// nextAt is when a schedule fires next after now, in its location.
	nextAt := func(spec, location string, now time.Time) time.Time {
		loc, err := time.LoadLocation(location)
		require.NoError(t, err)
		triggers, err := triggersOf(&Hibernation{Schedules: []schedule{{Start: spec, Location: loc.String()}}})
		require.NoError(t, err)
		return triggers[0].next(now)
	}
	for _, tc := range []struct {
		name        string
		now         time.Time
		created     time.Time
		schedules   []schedule
		lastTrigger time.Time
		deadline    time.Duration
		failed      bool
		wantFlip    bool
		wantEnabled bool
		// wantNextSpec is the schedule whose next firing is the next run.
		wantNextSpec, wantNextLocation string
	}{
		{name: "never hibernated, 30 seconds before the wake-up", now: at(weekDayAt2, -30*time.Second), created: at(weekDayAt2, -24*time.Hour),
			schedules: daily, deadline: noDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "never hibernated, just before the hibernation", now: at(weekDayAt7, -time.Second), created: at(weekDayAt7, -24*time.Hour),
			schedules: daily, deadline: noDeadline, wantFlip: true, wantEnabled: false, wantNextSpec: everyDayAt7, wantNextLocation: "UTC"},
		{name: "never hibernated, just after the hibernation start", now: at(weekDayAt7, time.Second), created: at(weekDayAt7, -24*time.Hour),
			schedules: daily, deadline: noDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "never hibernated, exactly at the hibernation start", now: at(weekDayAt7, 0), created: at(weekDayAt7, -30*time.Second),
			schedules: daily, deadline: noDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "just created", now: at(weekDayAt19, time.Second), created: at(weekDayAt19, 0),
			schedules: daily, deadline: noDeadline, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "several schedules, just after a hibernation", now: at(weekDayAt7, time.Second), created: at(weekDayAt7, -24*time.Hour),
			schedules: []schedule{
				{Start: everyDayAt7, End: everyDayAt2, Location: "Europe/Berlin"},
				{Start: everyWeekDayAt8, End: everyWeekDayAt19, Location: "Europe/Sofia"},
				{Start: everyDayAt2, End: everyDayAt7},
			},
			deadline: noDeadline, wantFlip: true, wantEnabled: false, wantNextSpec: everyWeekDayAt19, wantNextLocation: "Europe/Sofia"},
		{name: "flipped before, just after the hibernation start", now: at(weekDayAt7, time.Second), created: at(weekDayAt7, -24*time.Hour), lastTrigger: at(weekDayAt2, 0),
			schedules: daily, deadline: noDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "flipped before, before the hibernation start", now: at(weekDayAt7, -time.Second), created: at(weekDayAt7, -24*time.Hour), lastTrigger: at(weekDayAt2, 0),
			schedules: daily, deadline: noDeadline, wantNextSpec: everyDayAt7, wantNextLocation: "UTC"},
		{name: "never flipped, within the deadline", now: at(weekDayAt7, time.Second), created: at(weekDayAt7, -24*time.Hour),
			schedules: daily, deadline: longDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "flipped before, within the deadline", now: at(weekDayAt7, time.Second), created: at(weekDayAt7, -24*time.Hour), lastTrigger: at(weekDayAt2, 0),
			schedules: daily, deadline: longDeadline, wantFlip: true, wantEnabled: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "never flipped, past the deadline", now: at(weekDayAt7, shortDeadline+time.Second), created: at(weekDayAt7, -24*time.Hour),
			schedules: daily, deadline: shortDeadline, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "flipped before, past the deadline", now: at(weekDayAt7, shortDeadline+time.Second), created: at(weekDayAt7, -24*time.Hour), lastTrigger: at(weekDayAt2, 0),
			schedules: daily, deadline: shortDeadline, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
		{name: "failed and up to date", now: at(weekDayAt7, shortDeadline+time.Second), created: at(weekDayAt7, time.Second),
			schedules: daily, deadline: shortDeadline, failed: true, wantNextSpec: everyDayAt2, wantNextLocation: "UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			triggers, err := triggersOf(&Hibernation{Schedules: tc.schedules})
			require.NoError(t, err)
			live := liveShootWith(tc.created, tc.lastTrigger, tc.failed)
			fired, next := hibernationRun(triggers, tc.deadline, live, lastHibernationTrigger(live), tc.now)
			if assert.Equal(t, tc.wantFlip, fired != nil, "flips the Shoot") && fired != nil {
				assert.Equal(t, tc.wantEnabled, fired.hibernate, "spec.hibernation.enabled")
			}
			assert.Equal(t, nextAt(tc.wantNextSpec, tc.wantNextLocation, tc.now).Add(gcmTriggerDelay), next, "next run")
		})
	}
}

// liveShootWith is a live Shoot created at created, flipped last at lastTrigger (none when zero),
// failed and up to date when failed.
func liveShootWith(created, lastTrigger time.Time, failed bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "dev", "namespace": "garden-local", "generation": int64(1)},
	}}
	u.SetCreationTimestamp(metav1.NewTime(created))
	if !lastTrigger.IsZero() {
		_ = unstructured.SetNestedField(u.Object, lastTrigger.UTC().Format(time.RFC3339), "status", "lastHibernationTriggerTime")
	}
	if failed {
		_ = unstructured.SetNestedField(u.Object, "Failed", "status", "lastOperation", "state")
		_ = unstructured.SetNestedField(u.Object, int64(1), "status", "observedGeneration")
		_ = unstructured.SetNestedField(u.Object, images.GardenerVersion, "status", "gardener", "version")
	}
	return u
}

// Ties: the first trigger in list order wins (strict After in getScheduleWithMostRecentTime), a
// start before its own schedule's end, an earlier schedule before a later one.
func TestHibernationRunTies(t *testing.T) {
	now := mustTime(t, "2026-11-21T20:00:30Z")
	since := now.Add(-24 * time.Hour)
	for _, tc := range []struct {
		name      string
		schedules []schedule
		want      bool
	}{
		{"a start first in the list hibernates", []schedule{{Start: "0 20 * * *"}, {End: "0 20 * * *"}}, true},
		{"an end first in the list wakes up", []schedule{{End: "0 20 * * *"}, {Start: "0 20 * * *"}}, false},
		{"a schedule's start comes before its own end", []schedule{{Start: "0 20 * * *", End: "0 20 * * *"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			triggers, err := triggersOf(&Hibernation{Schedules: tc.schedules})
			require.NoError(t, err)
			fired := mostRecentTrigger(triggers, 2*time.Hour, since, now)
			require.NotNil(t, fired)
			assert.Equal(t, tc.want, fired.hibernate)
		})
	}
}

// The loop looks back at most seven days, and a Shoot in deletion is left alone.
func TestHibernationRunLookbackAndDeletion(t *testing.T) {
	// A schedule that fired eight days ago only (the 13th of November).
	triggers, err := triggersOf(&Hibernation{Schedules: []schedule{{Start: "0 20 13 11 *"}}})
	require.NoError(t, err)
	now := mustTime(t, "2026-11-21T21:00:00Z")
	assert.Nil(t, mostRecentTrigger(triggers, -1, now.AddDate(-1, 0, 0), now), "older than seven days")
	assert.NotNil(t, mostRecentTrigger(triggers, -1, now.AddDate(-1, 0, 0), now.AddDate(0, 0, -2)), "within seven days")

	live := liveShootWith(now.AddDate(0, -1, 0), time.Time{}, false)
	deleted := metav1.NewTime(now)
	live.SetDeletionTimestamp(&deleted)
	daily, err := triggersOf(&Hibernation{Schedules: []schedule{{Start: "0 20 * * *"}}})
	require.NoError(t, err)
	fired, _ := hibernationRun(daily, 2*time.Hour, live, lastHibernationTrigger(live), now)
	assert.Nil(t, fired, "a Shoot in deletion is left alone")
}

// lastRunUntil: the loop runs at every trigger, 100 ms after it, so by a time it has carried out
// the latest trigger up to 100 ms before; a deadline shorter than that finds none.
func TestLastRunUntil(t *testing.T) {
	triggers, err := triggersOf(&Hibernation{Schedules: []schedule{{Start: "0 20 * * *", End: "0 6 * * *"}}})
	require.NoError(t, err)
	since := mustTime(t, "2026-11-21T12:00:00Z")
	for _, tc := range []struct {
		name     string
		until    string
		deadline time.Duration
		want     string // the trigger's time, "" for none
		start    bool
	}{
		{"before the start", "2026-11-21T19:59:59Z", 2 * time.Hour, "", false},
		{"at the start the loop has not run yet", "2026-11-21T20:00:00Z", 2 * time.Hour, "", false},
		{"a second after the start", "2026-11-21T20:00:01Z", 2 * time.Hour, "2026-11-21T20:00:00Z", true},
		{"the next morning: the end", "2026-11-22T07:00:00Z", 2 * time.Hour, "2026-11-22T06:00:00Z", false},
		{"days later: the latest", "2026-11-24T21:00:00Z", 2 * time.Hour, "2026-11-24T20:00:00Z", true},
		{"a deadline shorter than the delay", "2026-11-21T21:00:00Z", 50 * time.Millisecond, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lastRunUntil(triggers, tc.deadline, since, mustTime(t, tc.until))
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.at.Format(time.RFC3339))
			assert.Equal(t, tc.start, got.hibernate)
		})
	}
}
