package report

import (
	"strings"
	"time"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Condition is a condition's state as the engine decides it; the times are the writer's.
type Condition struct {
	Type    string
	Status  string
	Reason  string
	Message string
}

// Condition statuses, as Gardener's conditions have them (pkg/apis/core/v1beta1/types_utils.go).
const (
	True    = "True"
	False   = "False"
	Unknown = "Unknown"
)

// buildCondition is the condition old becomes with c, as Gardener's condition builder makes it
// (pkg/apis/core/v1beta1/helper/condition_builder.go at v1.120.0): lastTransitionTime moves only
// when the status changes, lastUpdateTime only when the reason or the message does; an empty
// reason is "Unspecified", an empty message "No message given.". changed is false when the
// condition stays as it was.
func buildCondition(old map[string]any, c Condition, now time.Time) (out map[string]any, changed bool) {
	if c.Reason == "" {
		c.Reason = "Unspecified"
	}
	if c.Message == "" {
		c.Message = "No message given."
	}
	stamp := now.UTC().Format(time.RFC3339)
	if old == nil {
		return map[string]any{
			"type": c.Type, "status": c.Status, "reason": c.Reason, "message": c.Message,
			"lastTransitionTime": stamp, "lastUpdateTime": stamp,
		}, true
	}
	out = map[string]any{}
	for k, v := range old {
		out[k] = v
	}
	delete(out, "codes") // codes are never carried over
	if old["status"] != c.Status {
		out["status"], out["lastTransitionTime"], changed = c.Status, stamp, true
	}
	if old["reason"] != c.Reason || old["message"] != c.Message {
		out["reason"], out["message"], out["lastUpdateTime"], changed = c.Reason, c.Message, stamp, true
	}
	if _, had := old["codes"]; had {
		changed = true
	}
	for _, k := range []string{"lastTransitionTime", "lastUpdateTime"} {
		if _, ok := out[k]; !ok {
			out[k], changed = stamp, true
		}
	}
	return out, changed
}

// mergeConditions sets the conditions of want in live's list, replacing those of the same type
// and appending new types, and keeps every other condition (another controller's) as it is.
func mergeConditions(live []any, want []Condition, now time.Time) (out []any, changed bool) {
	byType := map[string]int{}
	for i, c := range live {
		if m, ok := c.(map[string]any); ok {
			if t, ok := m["type"].(string); ok {
				byType[t] = i
			}
		}
	}
	out = append([]any(nil), live...)
	for _, c := range want {
		i, exists := byType[c.Type]
		var old map[string]any
		if exists {
			old, _ = out[i].(map[string]any)
		}
		built, ch := buildCondition(old, c, now)
		if !ch {
			continue
		}
		changed = true
		if exists {
			out[i] = built
		} else {
			byType[c.Type] = len(out)
			out = append(out, built)
		}
	}
	return out, changed
}

// Judge decides a reported condition: a fixed one (no parts) as given; otherwise True with its
// reason and message when ready says every part is ready, False with its false reason and what is
// not ready otherwise. ready reports whether a part's objects are ready and, if not, why.
func Judge(c render.ReportedCondition, ready func(part string) (bool, string)) Condition {
	if len(c.Parts) == 0 {
		return Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
	}
	var problems []string
	for _, p := range c.Parts {
		if ok, why := ready(p); !ok {
			problems = append(problems, p+": "+why)
		}
	}
	if len(problems) == 0 {
		return Condition{Type: c.Type, Status: True, Reason: c.Reason, Message: c.Message}
	}
	reason := c.FalseReason
	if reason == "" {
		reason = "ComponentsNotReady"
	}
	return Condition{Type: c.Type, Status: False, Reason: reason, Message: strings.Join(problems, "; ")}
}
