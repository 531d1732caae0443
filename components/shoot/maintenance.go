package shoot

import (
	"fmt"

	"github.com/declarative-gardener/gardener/engine/render"
)

// confineToWindow: with .spec.maintenance.confineSpecUpdateRollout, "changes to the shoot
// specification are not rolled out immediately but only during the respective maintenance time
// window" (S4:14778, S4:23155). The Shoot itself takes the new specification at once (Gardener
// accepts it, without a new generation), while every part of the control plane holds its
// changes until the window; a new shoot is created at once. Gardener picks a window for a shoot
// that has none, which a landscape cannot know, so confining needs an explicit time_window.
func (b *builder) confineToWindow() error {
	m := b.v.Maintenance
	if m == nil || !m.ConfineSpecUpdateRollout {
		return nil
	}
	if m.TimeWindow == nil || m.TimeWindow.Begin == "" || m.TimeWindow.End == "" {
		return fmt.Errorf("maintenance.confine_spec_update_rollout needs maintenance.time_window: the changes wait for that window")
	}
	w := &render.MaintenanceWindow{Begin: m.TimeWindow.Begin, End: m.TimeWindow.End}
	for i := range b.parts {
		if b.parts[i].Name != "shoot" {
			b.parts[i].Window = w
		}
	}
	return nil
}
