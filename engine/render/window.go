package render

import (
	"fmt"
	"time"
)

// windowLayout parses Gardener's maintenance time of day: HHMMSS and a UTC offset (Gardener's
// MaintenanceTimeWindow in docs/api-reference/core.md).
const windowLayout = "150405-0700"

// DailyWindow is a parsed MaintenanceWindow: a time span that recurs every day.
type DailyWindow struct {
	begin, end time.Time // times of day on 2000-01-01, in UTC
	// Text is the window in UTC, such as "22:00-23:00 UTC", for plans.
	Text string
}

// Parse reads the window's begin and end.
func (w MaintenanceWindow) Parse() (DailyWindow, error) {
	begin, err := time.Parse(windowLayout, w.Begin)
	if err != nil {
		return DailyWindow{}, fmt.Errorf("maintenance window begin %q is not HHMMSS+HHMM: %w", w.Begin, err)
	}
	end, err := time.Parse(windowLayout, w.End)
	if err != nil {
		return DailyWindow{}, fmt.Errorf("maintenance window end %q is not HHMMSS+HHMM: %w", w.End, err)
	}
	text := fmt.Sprintf("%s-%s UTC", begin.UTC().Format("15:04"), end.UTC().Format("15:04"))
	return DailyWindow{begin: timeOfDay(begin), end: timeOfDay(end), Text: text}, nil
}

// timeOfDay is t's time of day in UTC, on the reference day.
func timeOfDay(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(2000, 1, 1, u.Hour(), u.Minute(), u.Second(), 0, time.UTC)
}

// Contains reports whether now falls in the window; a window whose end is not after its begin
// spans midnight.
func (w DailyWindow) Contains(now time.Time) bool {
	t := timeOfDay(now)
	if w.end.After(w.begin) {
		return !t.Before(w.begin) && t.Before(w.end)
	}
	return !t.Before(w.begin) || t.Before(w.end)
}

// NextBegin is the first time after now at which the window begins.
func (w DailyWindow) NextBegin(now time.Time) time.Time { return nextAt(w.begin, now) }

// NextEnd is the first time after now at which the window ends.
func (w DailyWindow) NextEnd(now time.Time) time.Time { return nextAt(w.end, now) }

// nextAt is the first time after now whose UTC time of day is tod's.
func nextAt(tod, now time.Time) time.Time {
	u := now.UTC()
	t := time.Date(u.Year(), u.Month(), u.Day(), tod.Hour(), tod.Minute(), tod.Second(), 0, time.UTC)
	if !t.After(u) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// Earliest is the earliest of times that are set; zero, meaning never, when none is.
func Earliest(times ...time.Time) time.Time {
	var first time.Time
	for _, t := range times {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}
