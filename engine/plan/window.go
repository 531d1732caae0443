package plan

import (
	"fmt"
	"time"

	"github.com/declarative-gardener/gardener/engine/render"
)

// windowLayout parses Gardener's maintenance time of day: HHMMSS and a UTC offset.
const windowLayout = "150405-0700"

// window is a parsed daily maintenance window.
type window struct {
	begin, end time.Time // times of day on 2000-01-01, in UTC
	text       string
}

// parseWindow reads a render.MaintenanceWindow.
func parseWindow(w render.MaintenanceWindow) (window, error) {
	begin, err := time.Parse(windowLayout, w.Begin)
	if err != nil {
		return window{}, fmt.Errorf("maintenance window begin %q is not HHMMSS+HHMM: %w", w.Begin, err)
	}
	end, err := time.Parse(windowLayout, w.End)
	if err != nil {
		return window{}, fmt.Errorf("maintenance window end %q is not HHMMSS+HHMM: %w", w.End, err)
	}
	text := fmt.Sprintf("%s-%s UTC", begin.UTC().Format("15:04"), end.UTC().Format("15:04"))
	return window{begin: timeOfDay(begin), end: timeOfDay(end), text: text}, nil
}

// timeOfDay is t's time of day in UTC, on the reference day.
func timeOfDay(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(2000, 1, 1, u.Hour(), u.Minute(), u.Second(), 0, time.UTC)
}

// contains reports whether now falls in the window; a window whose end is not after its begin
// spans midnight.
func (w window) contains(now time.Time) bool {
	t := timeOfDay(now)
	if w.end.After(w.begin) {
		return !t.Before(w.begin) && t.Before(w.end)
	}
	return !t.Before(w.begin) || t.Before(w.end)
}

// holdOutsideWindows holds back the changes of components with a maintenance window, when now
// is outside their window: each change becomes a no-op with reason maintenance_window that says
// what it would be. Whether a window holds at all is the composite's (MaintenanceWindow's
// HoldWhile, decided when rendering); without conditions a component none of whose objects
// exists is created at once, as Gardener creates a shoot at once.
func holdOutsideWindows(components []*Component, rendered func(addr string) *Rendered, now time.Time) error {
	for _, c := range components {
		rd := rendered(c.Address)
		if rd == nil || rd.Window == nil {
			continue
		}
		w, err := parseWindow(*rd.Window)
		if err != nil {
			return fmt.Errorf("component %s: %w", c.Address, err)
		}
		// With HoldWhile the composite decided when rendering that its window holds (else
		// Window is nil by now); without, a part holds once it exists.
		if w.contains(now) || (len(rd.Window.HoldWhile) == 0 && !exists(c)) {
			continue
		}
		held := 0
		for _, o := range c.Objects {
			if o.Action == NoOp || o.Action == Read {
				continue
			}
			o.Held, o.Action, o.Reason = o.Action, NoOp, ReasonMaintenanceWindow
			held++
		}
		if held > 0 {
			c.Note = fmt.Sprintf("%d change(s) held until the maintenance window %s", held, w.text)
		}
	}
	return nil
}

// exists reports whether any object of the component exists live.
func exists(c *Component) bool {
	for _, o := range c.Objects {
		if o.Action != Create {
			return true
		}
	}
	return false
}
