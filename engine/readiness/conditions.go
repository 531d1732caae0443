package readiness

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// condition is the part of a status condition the rules read. Kubernetes (metav1.Condition and the
// per-API variants) and Gardener (Gardener's Condition in docs/api-reference/core.md) share these
// fields.
type condition struct {
	Type, Status, Reason, Message string
}

// conditions returns status.conditions in their stored order.
func conditions(obj *unstructured.Unstructured) []condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]condition, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		c := condition{}
		c.Type, _ = m["type"].(string)
		c.Status, _ = m["status"].(string)
		c.Reason, _ = m["reason"].(string)
		c.Message, _ = m["message"].(string)
		out = append(out, c)
	}
	return out
}

// findCondition returns the condition of type t.
func findCondition(conds []condition, t string) (condition, bool) {
	for _, c := range conds {
		if c.Type == t {
			return c, true
		}
	}
	return condition{}, false
}

// describe renders a condition for a reason: `Type is Status: message` with the reason as a
// fallback for an empty message, e.g. `Available is False: endpoints for service/x have no pods`.
func (c condition) describe() string {
	s := c.Type + " is " + orDefault(c.Status, "unset")
	if msg := c.detail(); msg != "" {
		s += ": " + msg
	}
	return s
}

// detail is the condition's message, or its machine reason when there is no message.
func (c condition) detail() string {
	if m := strings.TrimSpace(c.Message); m != "" {
		return m
	}
	return c.Reason
}

// requireTrue checks that each of types is present with status True and returns one reason per
// failing condition, in the order given.
func requireTrue(conds []condition, types ...string) []string {
	var reasons []string
	for _, t := range types {
		c, ok := findCondition(conds, t)
		switch {
		case !ok:
			reasons = append(reasons, t+" not reported yet")
		case c.Status != "True":
			reasons = append(reasons, c.describe())
		}
	}
	return reasons
}

// trueIfPresent is requireTrue for conditions that some objects do not have (for example
// EveryNodeReady on a workerless Shoot, Gardener's "Shoot Status"
// docs/usage/shoot/shoot_status.md).
func trueIfPresent(conds []condition, types ...string) []string {
	var reasons []string
	for _, t := range types {
		if c, ok := findCondition(conds, t); ok && c.Status != "True" {
			reasons = append(reasons, c.describe())
		}
	}
	return reasons
}

// notTrue checks that a condition which signals ongoing work (Progressing) is absent or not True.
func notTrue(conds []condition, t string) []string {
	if c, ok := findCondition(conds, t); ok && c.Status == "True" {
		return []string{c.describe()}
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
