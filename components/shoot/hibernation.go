package shoot

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Hibernation schedules (.spec.hibernation.schedules) are gardener-controller-manager's: "a
// Shoot will be regularly hibernated at each start time and will be woken up at each end time"
// (Gardener's HibernationSchedule in docs/api-reference/core.md), and its hibernation loop flips
// the Shoot's spec.hibernation.enabled at the triggers (gcmhibernation.go). The shoot block
// never writes that flip itself:
//
//   - The Shoot carries the landscape's hibernation.enabled when it is created and when the
//     landscape's value changed since the Shoot was last written (a deliberate hibernation or
//     wake-up, "you can hibernate your cluster or wake up your cluster manually even if there's a
//     schedule", Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md); otherwise
//     it carries the live value, which gardener-controller-manager or a person set.
//   - The control plane hibernates or wakes up because the Shoot says so: the live Shoot, or, in
//     a plan for a later time (render.Input.ObservedAt), the Shoot as the loop will have changed
//     it by then.
//   - The plan predicts the loop's next trigger (render.Output.Predictions), and the daemon
//     comes back then.

// AnnotationHibernationDeclared is hibernation.enabled as the landscape said when the Shoot was
// last written: a landscape that says otherwise now was changed by someone, which is a
// hibernation or wake-up of its own rather than the schedules'.
const AnnotationHibernationDeclared = "declarative-gardener.io/hibernation-declared"

// hibernationDecision is what the shoot's hibernation is.
type hibernationDecision struct {
	// enabled is the control plane's: hibernated when the Shoot says so by the evaluation time.
	enabled bool
	// onShoot is the Shoot's spec.hibernation.enabled as the engine writes it.
	onShoot bool
	// onShootIsLive says that onShoot is the live Shoot's value, which
	// gardener-controller-manager may flip before the engine writes it.
	onShootIsLive bool
	// declared is AnnotationHibernationDeclared's value; empty without schedules.
	declared string
	// note says why the control plane hibernates or wakes up where the landscape's
	// hibernation.enabled does not say so.
	note string
	// predictions are what gardener-controller-manager's hibernation loop does by the
	// evaluation time and next.
	predictions []hibernationPrediction
	// next is when the loop acts next; zero when it does not.
	next time.Time
}

// hibernationPrediction is one run of the hibernation loop that changes the Shoot.
type hibernationPrediction struct {
	at          time.Time
	description string
}

// hibernationInput is what the hibernation decision depends on.
type hibernationInput struct {
	declared *Hibernation
	// live is the live Shoot, nil when it does not exist yet.
	live *unstructured.Unstructured
	// observed is when live was read, now the evaluation time (render.Input).
	observed, now time.Time
	// deadline is the loop's trigger deadline (gardener_controller_manager's
	// shoot_hibernation_trigger_deadline).
	deadline time.Duration
	// liveIsDeclared is set when declared is the live Shoot's own hibernation (a Shoot a user
	// created through the API): no landscape changed it, whatever the Shoot's annotations say.
	liveIsDeclared bool
}

// decideHibernation decides the shoot's hibernation: the Shoot's and the control plane's.
func decideHibernation(in hibernationInput) (hibernationDecision, error) {
	h := in.declared
	if h == nil {
		return hibernationDecision{}, nil
	}
	d := hibernationDecision{enabled: h.Enabled, onShoot: h.Enabled}
	if len(h.Schedules) == 0 {
		return d, nil // nothing of gardener-controller-manager's: the landscape decides
	}
	triggers, err := triggersOf(h)
	if err != nil {
		return d, err
	}
	d.declared = strconv.FormatBool(h.Enabled)
	if in.live == nil {
		// Created by this apply: the loop's first run (the Shoot's creation) counts triggers
		// from the creation on, so it finds none.
		d.predictNext(triggers, in.now, "")
		return d, nil
	}
	skipped := hibernationSkipped(in.live)
	liveEnabled, _, _ := unstructured.NestedBool(in.live.Object, "spec", "hibernation", "enabled")
	deliberate := !in.liveIsDeclared && in.live.GetAnnotations()[AnnotationHibernationDeclared] != d.declared
	if !deliberate {
		d.onShoot, d.onShootIsLive = liveEnabled, true
	}

	// What the loop does between the reading of the Shoot and the evaluation time, at each
	// trigger of the schedules the Shoot has, then what this apply changes. cause is the
	// prediction the control plane's hibernation follows from, if any.
	enabled, since := liveEnabled, lastHibernationTrigger(in.live)
	cause := ""
	if skipped == "" {
		liveTriggers, err := triggersOf(liveHibernation(in.live))
		if err != nil {
			liveTriggers = nil // the API validated them; unreadable ones fire never
		}
		if t := lastRunUntil(liveTriggers, in.deadline, laterOf(since, in.observed), in.now); t != nil {
			if t.hibernate != enabled {
				cause = fmt.Sprintf("%s at %s %s: spec.hibernation.enabled = %t", t.describes, t.at.Format(time.RFC3339), t.action(), t.hibernate)
				d.addPrediction(t.at, cause)
			}
			enabled, since = t.hibernate, t.at.Add(gcmTriggerDelay)
		}
	}
	if deliberate {
		enabled, cause = h.Enabled, ""
	}
	if schedulesChange(in.live, h) {
		// The loop runs when the Shoot's schedules change and catches up on a trigger within
		// the deadline (the Shoot's update event, ShootPredicate).
		if t, _ := hibernationRun(triggers, in.deadline, in.live, since, in.now); t != nil {
			if t.hibernate != enabled {
				cause = fmt.Sprintf("the changed schedules' %s at %s, within the trigger deadline, %s: spec.hibernation.enabled = %t", t.describes, t.at.Format(time.RFC3339), t.action(), t.hibernate)
				d.addPrediction(in.now, cause)
			}
			enabled = t.hibernate
		}
	}
	d.enabled = enabled
	d.note = hibernationNote(cause, enabled, h.Enabled, liveEnabled, in.live)
	d.predictNext(triggers, in.now, skipped)
	return d, nil
}

// predictNext predicts the loop's run at the next trigger, unless it leaves the Shoot alone.
func (d *hibernationDecision) predictNext(triggers []scheduleTrigger, now time.Time, skipped string) {
	next := nextTrigger(triggers, now)
	if next == nil {
		return
	}
	d.next = next.at.Add(gcmTriggerDelay)
	if skipped != "" {
		return
	}
	d.predictions = append(d.predictions, hibernationPrediction{at: next.at,
		description: fmt.Sprintf("%s %s: spec.hibernation.enabled = %t", next.describes, next.action(), next.hibernate)})
}

func (d *hibernationDecision) addPrediction(at time.Time, description string) {
	d.predictions = append(d.predictions, hibernationPrediction{at: at, description: description})
}

// hibernationNote says why the control plane hibernates or wakes up where the landscape's
// hibernation.enabled does not: a run of the loop predicted by the evaluation time (cause), or
// the Shoot as the loop (or a person) left it.
func hibernationNote(cause string, enabled, declared, liveEnabled bool, live *unstructured.Unstructured) string {
	if cause != "" {
		return "gardener-controller-manager's " + cause
	}
	if enabled == declared {
		return ""
	}
	state := "hibernated"
	if !enabled {
		state = "awake"
	}
	note := fmt.Sprintf("hibernation: the Shoot says %s (spec.hibernation.enabled %t", state, liveEnabled)
	if s, _, _ := unstructured.NestedString(live.Object, "status", "lastHibernationTriggerTime"); s != "" {
		note += ", gardener-controller-manager's hibernation schedule trigger at " + s
	}
	return note + ")"
}

// liveHibernation is the live Shoot's hibernation schedules as the landscape declares them.
func liveHibernation(live *unstructured.Unstructured) *Hibernation {
	list, _, _ := unstructured.NestedSlice(live.Object, "spec", "hibernation", "schedules")
	h := &Hibernation{}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var s struct {
			Start    string `json:"start"`
			End      string `json:"end"`
			Location string `json:"location"`
		}
		s.Start, _, _ = unstructured.NestedString(m, "start")
		s.End, _, _ = unstructured.NestedString(m, "end")
		s.Location, _, _ = unstructured.NestedString(m, "location")
		h.Schedules = append(h.Schedules, s)
	}
	return h
}

// schedulesChange reports whether this apply changes the live Shoot's schedules (the location
// the server defaults is not compared when the landscape leaves it out).
func schedulesChange(live *unstructured.Unstructured, declared *Hibernation) bool {
	have := liveHibernation(live).Schedules
	if len(have) != len(declared.Schedules) {
		return true
	}
	for i, s := range declared.Schedules {
		h := have[i]
		if s.Location == "" && h.Location == time.UTC.String() {
			h.Location = ""
		}
		if !reflect.DeepEqual(h, s) {
			return true
		}
	}
	return false
}

// laterOf is the later of two times.
func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// hibernationPredictions are the hibernation loop's runs as the plan shows them.
func (b *builder) hibernationPredictions() []render.Prediction {
	var out []render.Prediction
	for _, p := range b.hibernation.predictions {
		out = append(out, b.shootPrediction("shoot-hibernation", p.at, time.Time{}, p.description))
	}
	return out
}

// shootPrediction is a prediction of what a loop of gardener-controller-manager does to the
// shoot's Shoot.
func (b *builder) shootPrediction(controller string, at, until time.Time, description string) render.Prediction {
	return render.Prediction{
		Actor: "gardener-controller-manager", Controller: controller,
		Cluster: b.seed.VirtualCluster, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot",
		Namespace: ProjectNamespace(b.v.Project), Name: b.name,
		Action: "update", At: at, Until: until, Description: description,
	}
}

// observeShoot reads the live Shoot of the landscape's shoot; nil when it does not exist.
func (b *builder) observeShoot(in render.Input) (*unstructured.Unstructured, error) {
	return in.Observed(render.LiveRef{
		Cluster: b.seed.VirtualCluster, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
		Namespace: ProjectNamespace(b.v.Project), Name: b.name,
	})
}
