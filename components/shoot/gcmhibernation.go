package shoot

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// The rules of gardener-controller-manager's hibernation loop (shoot-hibernation,
// pkg/controllermanager/controller/shoot/hibernation/reconciler.go and add.go at Gardener
// v1.120.0), ported so that the shoot block predicts what it does to a Shoot and when. It runs
// on a Shoot with schedules when the Shoot is created, when its schedules change, and then at
// every trigger of its schedules (100 ms after it, nextScheduleDelta). Each time, it looks for the
// trigger with the latest time in (earliest, now], earliest being the latest of the Shoot's
// status.lastHibernationTriggerTime (its creationTimestamp before the first trigger), now minus
// the trigger deadline and now minus seven days; it sets spec.hibernation.enabled to that
// trigger's (true for a start, false for an end) and status.lastHibernationTriggerTime to now.
// It leaves alone Shoots being deleted and Shoots whose last operation failed and that are up to
// date (IsShootFailedAndUpToDate in pkg/utils/gardener/shoot.go).
const (
	// gcmTriggerDelay is how long after a trigger the loop runs (nextScheduleDelta).
	gcmTriggerDelay = 100 * time.Millisecond
	// gcmTriggerLookback caps how far back the loop looks for a trigger (sevenDays).
	gcmTriggerLookback = 7 * 24 * time.Hour
)

// scheduleTrigger is one start or one end of a hibernation schedule, in the order the loop lists
// them (parseHibernationSchedules): each schedule's start, then its end, schedule by schedule.
// When two fire at the same instant, the first in that order wins.
type scheduleTrigger struct {
	schedule  cron.Schedule
	location  *time.Location
	hibernate bool
	// describes names the trigger for plans: `schedule 1 (start "0 20 * * *" in UTC)`.
	describes string
}

// firedTrigger is a trigger at the instant it fires.
type firedTrigger struct {
	*scheduleTrigger
	at time.Time
}

// action says what the trigger does to the shoot.
func (t *scheduleTrigger) action() string {
	if t.hibernate {
		return "hibernates the shoot"
	}
	return "wakes the shoot up"
}

// triggersOf parses a shoot's schedules into their triggers.
func triggersOf(h *Hibernation) ([]scheduleTrigger, error) {
	if h == nil {
		return nil, nil
	}
	var out []scheduleTrigger
	for i, s := range h.Schedules {
		if s.Start == "" && s.End == "" {
			// Gardener's docs/usage/shoot/shoot_hibernate.md: "at least one of them has to be specified".
			return nil, fmt.Errorf("hibernation schedule %d has neither start nor end; set at least one", i+1)
		}
		location := time.UTC // the loop's default, time.UTC.String()
		if s.Location != "" {
			var err error
			if location, err = time.LoadLocation(s.Location); err != nil {
				return nil, fmt.Errorf("hibernation schedule %d: location %q: %w", i+1, s.Location, err)
			}
		}
		var texts []string
		for _, e := range []struct{ what, spec string }{{"start", s.Start}, {"end", s.End}} {
			if e.spec != "" {
				texts = append(texts, fmt.Sprintf("%s %q", e.what, e.spec))
			}
		}
		for _, e := range []struct {
			what, spec string
			hibernate  bool
		}{{"start", s.Start, true}, {"end", s.End, false}} {
			if e.spec == "" {
				continue
			}
			parsed, err := schema.ParseCron(e.spec)
			if err != nil {
				return nil, fmt.Errorf("hibernation schedule %d: %s %q: %w", i+1, e.what, e.spec, err)
			}
			out = append(out, scheduleTrigger{
				schedule: parsed, location: location, hibernate: e.hibernate,
				describes: fmt.Sprintf("hibernation schedule %d (%s in %s)'s %s", i+1, strings.Join(texts, ", "), location, e.what),
			})
		}
	}
	return out, nil
}

// next is the trigger's first firing after t (parsedHibernationSchedule.next).
func (t *scheduleTrigger) next(after time.Time) time.Time {
	return t.schedule.Next(after.In(t.location)).UTC()
}

// previous is the trigger's latest firing in (from, to], zero when it does not fire then
// (parsedHibernationSchedule.previous).
func (t *scheduleTrigger) previous(from, to time.Time) time.Time {
	var last time.Time
	for at := t.schedule.Next(from.In(t.location)); !at.IsZero() && !at.UTC().After(to.UTC()); at = t.schedule.Next(at) {
		last = at.UTC()
	}
	return last
}

// mostRecentTrigger is the trigger the loop carries out when it runs at now
// (getScheduleWithMostRecentTime): the one with the latest firing in (earliest, now], earliest
// being since (the Shoot's last trigger time, or its creation) moved up to now minus the deadline
// and to now minus seven days; the first in list order on ties. A negative deadline is none (a
// configuration without triggerDeadlineDuration). Nil when none fires then.
func mostRecentTrigger(triggers []scheduleTrigger, deadline time.Duration, since, now time.Time) *firedTrigger {
	earliest := since
	if deadline >= 0 {
		if d := now.Add(-deadline); d.After(earliest) {
			earliest = d
		}
	}
	if lookback := now.Add(-gcmTriggerLookback); earliest.Before(lookback) {
		earliest = lookback
	}
	var found *firedTrigger
	for i := range triggers {
		at := triggers[i].previous(earliest, now)
		if at.IsZero() {
			continue
		}
		if found == nil || at.After(found.at) {
			found = &firedTrigger{scheduleTrigger: &triggers[i], at: at}
		}
	}
	return found
}

// nextTrigger is the earliest firing of any trigger after t, the first in list order on ties; nil
// without triggers.
func nextTrigger(triggers []scheduleTrigger, after time.Time) *firedTrigger {
	var found *firedTrigger
	for i := range triggers {
		at := triggers[i].next(after)
		if at.IsZero() {
			continue
		}
		if found == nil || at.Before(found.at) {
			found = &firedTrigger{scheduleTrigger: &triggers[i], at: at}
		}
	}
	return found
}

// lastRunUntil is the trigger the loop carried out last when it ran at every trigger after since
// and up to until (a trigger fires, the loop runs gcmTriggerDelay later and finds it): the latest
// trigger whose run is due by until, the first in list order on ties. A deadline shorter than the
// delay lets no run find its trigger. Nil when none is due.
func lastRunUntil(triggers []scheduleTrigger, deadline time.Duration, since, until time.Time) *firedTrigger {
	if deadline >= 0 && deadline < gcmTriggerDelay {
		return nil
	}
	var found *firedTrigger
	for i := range triggers {
		at := triggers[i].previous(since, until.Add(-gcmTriggerDelay))
		if at.IsZero() {
			continue
		}
		if found == nil || at.After(found.at) {
			found = &firedTrigger{scheduleTrigger: &triggers[i], at: at}
		}
	}
	return found
}

// hibernationSkipped says why the loop leaves the Shoot alone, empty when it does not: a Shoot
// in deletion, or one that failed and is up to date (IsShootFailedAndUpToDate: its last operation
// Failed, its generation observed and its status.gardener.version the controller manager's own,
// the pinned Gardener version).
func hibernationSkipped(live *unstructured.Unstructured) string {
	if live == nil {
		return ""
	}
	if live.GetDeletionTimestamp() != nil {
		return "the Shoot is being deleted"
	}
	if failedAndUpToDate(live) {
		return "the Shoot's last operation failed"
	}
	return ""
}

// failedAndUpToDate is Gardener's IsShootFailedAndUpToDate (pkg/utils/gardener/shoot.go at
// v1.120.0) with the garden's gardener-controller-manager of the pinned release.
func failedAndUpToDate(live *unstructured.Unstructured) bool {
	state, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "state")
	observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
	version, _, _ := unstructured.NestedString(live.Object, "status", "gardener", "version")
	return state == "Failed" && observed == live.GetGeneration() && version == images.GardenerVersion
}

// lastHibernationTrigger is the time the loop counts triggers from on the live Shoot: its
// status.lastHibernationTriggerTime, else its creation.
func lastHibernationTrigger(live *unstructured.Unstructured) time.Time {
	if s, _, _ := unstructured.NestedString(live.Object, "status", "lastHibernationTriggerTime"); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return live.GetCreationTimestamp().Time
}

// hibernationRun is one run of the loop at now on a Shoot with these triggers, counting triggers
// from since (Reconcile): the trigger it carries out (nil when none is due or the Shoot is left
// alone) and when it runs next.
func hibernationRun(triggers []scheduleTrigger, deadline time.Duration, live *unstructured.Unstructured, since, now time.Time) (*firedTrigger, time.Time) {
	var next time.Time
	if n := nextTrigger(triggers, now); n != nil {
		next = n.at.Add(gcmTriggerDelay)
	}
	if hibernationSkipped(live) != "" {
		return nil, next
	}
	return mostRecentTrigger(triggers, deadline, since, now), next
}
