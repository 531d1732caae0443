package shoot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Hibernation schedules (.spec.hibernation.schedules) are carried out the way
// gardener-controller-manager's hibernation reconciler does (Gardener's "Gardener Controller
// Manager" docs/concepts/controller-manager.md), as behaviour of the landscape rather than a
// controller: "a Shoot will be regularly hibernated at each start time and will be woken up at each
// end time" (Gardener's HibernationSchedule in docs/api-reference/core.md), and "you can hibernate
// your cluster or wake up your cluster manually even if there's a schedule" (Gardener's "Shoot
// Hibernation" docs/usage/shoot/shoot_hibernate.md). So a schedule acts at its triggers, not at
// every moment in between: what was decided last (a trigger, or a change of hibernation.enabled in
// the landscape) holds until the next trigger.
//
// The engine keeps what it needs to tell a new trigger from one carried out already on the
// Shoot itself, in two annotations, so that a plan depends only on the landscape, the live
// Shoot and the evaluation time:
const (
	// AnnotationHibernationTrigger is the time of the last schedule trigger the landscape
	// carried out (or took notice of, when the schedules or the shoot were new), RFC 3339.
	AnnotationHibernationTrigger = "declarative-gardener.io/hibernation-trigger"
	// AnnotationHibernationDeclared is hibernation.enabled as the landscape said when the
	// Shoot was last written: a landscape that says otherwise now was changed by someone, which
	// overrides the schedule until its next trigger.
	AnnotationHibernationDeclared = "declarative-gardener.io/hibernation-declared"
	// AnnotationHibernationSchedules identifies the schedules the trigger belongs to: edited
	// schedules, like new ones, do not catch up on triggers before the edit.
	AnnotationHibernationSchedules = "declarative-gardener.io/hibernation-schedules"
)

// scheduleFingerprint identifies a shoot's schedules (a short hash of start, end and location
// of each, in order).
func scheduleFingerprint(h *Hibernation) string {
	sum := sha256.New()
	for _, s := range h.Schedules {
		fmt.Fprintf(sum, "%q %q %q\n", s.Start, s.End, s.Location)
	}
	return hex.EncodeToString(sum.Sum(nil))[:16]
}

// triggerLookback bounds how far back the last trigger of a schedule is looked for: a schedule
// that fired not once in a year (a cron for February 30th) has no last trigger.
var triggerLookbacks = []time.Duration{26 * time.Hour, 8 * 24 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour}

// hibernationTrigger is one start or end of a schedule at a point in time.
type hibernationTrigger struct {
	at        time.Time
	hibernate bool
	// schedule is its schedule's number (1-based) and expression, for the plan's note.
	schedule string
}

// hibernationDecision is what the shoot's hibernation is at the evaluation time.
type hibernationDecision struct {
	enabled bool
	// trigger, declared and schedules are the annotations' values; empty without schedules.
	trigger, declared, schedules string
	// note says why the hibernation changes when a schedule caused it.
	note string
	// next is the next trigger after now; zero when there is none.
	next time.Time
}

// parsedSchedule is one of .spec.hibernation.schedules, parsed.
type parsedSchedule struct {
	number     int
	start, end cron.Schedule
	text       string
	location   *time.Location
}

func parseSchedules(h *Hibernation) ([]parsedSchedule, error) {
	var out []parsedSchedule
	for i, s := range h.Schedules {
		p := parsedSchedule{number: i + 1, location: time.UTC}
		if s.Start == "" && s.End == "" {
			// Gardener's docs/usage/shoot/shoot_hibernate.md: "at least one of them has to be specified".
			return nil, fmt.Errorf("hibernation schedule %d has neither start nor end; set at least one", i+1)
		}
		var err error
		var text []string
		if s.Start != "" {
			if p.start, err = schema.ParseCron(s.Start); err != nil {
				return nil, fmt.Errorf("hibernation schedule %d: start %q: %w", i+1, s.Start, err)
			}
			text = append(text, fmt.Sprintf("start %q", s.Start))
		}
		if s.End != "" {
			if p.end, err = schema.ParseCron(s.End); err != nil {
				return nil, fmt.Errorf("hibernation schedule %d: end %q: %w", i+1, s.End, err)
			}
			text = append(text, fmt.Sprintf("end %q", s.End))
		}
		p.text = strings.Join(text, ", ")
		if s.Location != "" {
			if p.location, err = time.LoadLocation(s.Location); err != nil {
				return nil, fmt.Errorf("hibernation schedule %d: location %q: %w", i+1, s.Location, err)
			}
		}
		p.text = fmt.Sprintf("%s in %s", p.text, p.location)
		out = append(out, p)
	}
	return out, nil
}

// lastAndNext returns the latest trigger at or before now and the earliest after it, over all
// schedules. A start and an end at the same instant wake the shoot: the schedules disagree, and
// a cluster that is up costs money while one that is down can stop someone's work.
func lastAndNext(schedules []parsedSchedule, now time.Time) (last *hibernationTrigger, next time.Time) {
	consider := func(t *hibernationTrigger) {
		if last == nil || t.at.After(last.at) || (t.at.Equal(last.at) && last.hibernate && !t.hibernate) {
			last = t
		}
	}
	for _, s := range schedules {
		for _, edge := range []struct {
			sched     cron.Schedule
			hibernate bool
			what      string
		}{{s.start, true, "start"}, {s.end, false, "end"}} {
			if edge.sched == nil {
				continue
			}
			local := now.In(s.location)
			if n := edge.sched.Next(local); !n.IsZero() && (next.IsZero() || n.Before(next)) {
				next = n
			}
			if at, ok := previous(edge.sched, local); ok {
				consider(&hibernationTrigger{at: at, hibernate: edge.hibernate, schedule: fmt.Sprintf("schedule %d (%s)", s.number, s.text)})
			}
		}
	}
	return last, next
}

// previous is the latest time at or before now the schedule fires.
func previous(s cron.Schedule, now time.Time) (time.Time, bool) {
	// Next is strictly after its argument, so a trigger exactly at now is found from a second
	// before; cron's resolution is a minute.
	for _, back := range triggerLookbacks {
		var found time.Time
		for t := s.Next(now.Add(-back - time.Second)); !t.IsZero() && !t.After(now); t = s.Next(t) {
			found = t
		}
		if !found.IsZero() {
			return found, true
		}
	}
	return time.Time{}, false
}

// decideHibernation tells whether the shoot is hibernated at now, given the landscape's
// hibernation block and the live Shoot (nil when it does not exist yet).
func decideHibernation(h *Hibernation, now time.Time, live *unstructured.Unstructured) (hibernationDecision, error) {
	if h == nil {
		return hibernationDecision{}, nil
	}
	d := hibernationDecision{enabled: h.Enabled}
	if len(h.Schedules) == 0 {
		return d, nil
	}
	schedules, err := parseSchedules(h)
	if err != nil {
		return d, err
	}
	last, next := lastAndNext(schedules, now)
	d.next, d.declared, d.schedules = next, strconv.FormatBool(h.Enabled), scheduleFingerprint(h)
	lastAt := ""
	if last != nil {
		lastAt = last.at.UTC().Format(time.RFC3339)
	}
	d.trigger = lastAt

	var annotations map[string]string
	if live != nil {
		annotations = live.GetAnnotations()
	}
	carried, hasCarried := annotations[AnnotationHibernationTrigger]
	declared, hasDeclared := annotations[AnnotationHibernationDeclared]
	switch {
	case live == nil || !hasCarried || !hasDeclared:
		// A new shoot, or schedules new to it: the landscape's hibernation.enabled holds, and
		// the triggers before now are history, not something to catch up on (a schedule added
		// in the morning does not hibernate the shoot for last night's start).
		return d, nil
	case declared != d.declared:
		// Someone changed hibernation.enabled in the landscape: a manual hibernation or wake-up
		// (Gardener's docs/usage/shoot/shoot_hibernate.md), which holds until the next trigger.
		return d, nil
	}
	liveEnabled, _, _ := unstructured.NestedBool(live.Object, "spec", "hibernation", "enabled")
	d.enabled, d.trigger = liveEnabled, carried
	if last == nil || lastAt == carried {
		return d, nil // no trigger since the last one carried out
	}
	carriedAt, err := time.Parse(time.RFC3339, carried)
	if annotations[AnnotationHibernationSchedules] != d.schedules || err != nil {
		// Edited schedules (or a trigger annotation someone mangled): the shoot stays as it
		// is, and the triggers before now are history, as for schedules new to the shoot.
		d.trigger = lastAt
		return d, nil
	}
	if !last.at.After(carriedAt) {
		return d, nil // the last trigger is older than the one carried out
	}
	// Gardener's docs/concepts/controller-manager.md: "It ignores failed Shoots and those marked for
	// deletion."
	if state, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "state"); state == "Failed" {
		return d, nil
	}
	if live.GetDeletionTimestamp() != nil {
		return d, nil
	}
	d.trigger = lastAt
	if d.enabled != last.hibernate {
		verb := "wakes the shoot up"
		if last.hibernate {
			verb = "hibernates the shoot"
		}
		d.note = fmt.Sprintf("hibernation %s at %s %s", last.schedule, last.at.Format(time.RFC3339), verb)
	}
	d.enabled = last.hibernate
	return d, nil
}

// observeShoot reads the live Shoot of the landscape's shoot; nil when it does not exist.
func (b *builder) observeShoot(in render.Input) (*unstructured.Unstructured, error) {
	return in.Observed(render.LiveRef{
		Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
		Namespace: ProjectNamespace(b.v.Project), Name: b.name,
	})
}
