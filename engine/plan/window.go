package plan

import (
	"fmt"
	"time"

	"github.com/declarative-gardener/gardener/engine/rendering"
)

// holdOutsideWindows holds back the changes of components with a maintenance window, when now
// is outside their window: each change becomes a no-op with reason maintenance_window that says
// what it would be. Whether a window holds at all is the composite's (MaintenanceWindow's
// HoldWhile, decided when rendering); without conditions a component none of whose objects
// exists is created at once, as Gardener creates a shoot at once.
func holdOutsideWindows(components []*Component, rendered func(addr string) *rendering.Rendered, now time.Time) error {
	for _, c := range components {
		rd := rendered(c.Address)
		if rd == nil || rd.Window == nil {
			continue
		}
		w, err := rd.Window.Parse()
		if err != nil {
			return fmt.Errorf("component %s: %w", c.Address, err)
		}
		// With HoldWhile the composite decided when rendering that its window holds (else
		// Window is nil by now); without, a part holds once it exists.
		if w.Contains(now) || (len(rd.Window.HoldWhile) == 0 && !exists(c)) {
			continue
		}
		held := 0
		for _, o := range c.Objects {
			if o.Action == NoOp || o.Action == Read {
				continue
			}
			o.Held, o.Action, o.Reason = o.Action, NoOp, Reason{Kind: ReasonMaintenanceWindow}
			held++
		}
		if held > 0 {
			c.Note = heldNote(held, w.Text)
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
