package shoot

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// AnnotationPreviousWindow keeps a confined shoot's maintenance window ("begin-end", such as
// "220000+0000-230000+0000") after the landscape changed it: "if you change the maintenance time
// window itself, then it will only be effective after the upcoming maintenance" (Gardener's "Shoot
// Maintenance" docs/usage/shoot/shoot_maintenance.md). The Shoot takes the new window at once, the
// held changes wait for the old one once more.
const AnnotationPreviousWindow = "declarative-gardener.io/previous-maintenance-window"

// shootWindow is the window the shoot's maintenance acts in now, and the previous window to
// keep on the Shoot while a changed window waits for the upcoming maintenance.
type shootWindow struct {
	window   render.MaintenanceWindow
	previous string
}

// decideWindow picks the window: the landscape's time_window, or the one Gardener picked for the
// live Shoot when the landscape names none (Gardener's MaintenanceTimeWindow in
// docs/api-reference/core.md); for a shoot with confine_spec_update_rollout whose window the
// landscape changed, the old window until the upcoming maintenance in it begins.
func decideWindow(m *Maintenance, live *unstructured.Unstructured, now time.Time) shootWindow {
	var liveWindow render.MaintenanceWindow
	var previous string
	if live != nil {
		liveWindow.Begin, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "begin")
		liveWindow.End, _, _ = unstructured.NestedString(live.Object, "spec", "maintenance", "timeWindow", "end")
		previous = live.GetAnnotations()[AnnotationPreviousWindow]
	}
	if m == nil || m.TimeWindow == nil || m.TimeWindow.Begin == "" || m.TimeWindow.End == "" {
		return shootWindow{window: liveWindow}
	}
	declared := render.MaintenanceWindow{Begin: m.TimeWindow.Begin, End: m.TimeWindow.End}
	if !m.ConfineSpecUpdateRollout {
		return shootWindow{window: declared}
	}
	old := liveWindow
	if previous != "" {
		begin, end, ok := strings.Cut(previous, "-")
		if !ok {
			return shootWindow{window: declared} // mangled: the landscape's window counts
		}
		old = render.MaintenanceWindow{Begin: begin, End: end}
	}
	if old.Begin == "" || old.End == "" || (old.Begin == declared.Begin && old.End == declared.End) {
		return shootWindow{window: declared}
	}
	parsed, err := old.Parse()
	if err != nil {
		return shootWindow{window: declared}
	}
	if parsed.Contains(now) {
		// The upcoming maintenance is now: the held changes roll out in the old window, and the
		// new one counts from here on.
		return shootWindow{window: old}
	}
	return shootWindow{window: old, previous: old.Begin + "-" + old.End}
}
