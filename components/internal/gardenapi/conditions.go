package gardenapi

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Condition is one of a live Gardener object's .status.conditions (Gardener's Condition in
// docs/api-reference/core.md), as far as the components that decide from them read it.
type Condition struct {
	Status, Message string
	// LastTransitionTime is zero when it is missing or does not parse.
	LastTransitionTime time.Time
}

// LiveCondition returns the first condition of type typ in a live object's .status.conditions;
// false when the object is nil or has no such condition.
func LiveCondition(u *unstructured.Unstructured, typ string) (Condition, bool) {
	if u == nil {
		return Condition{}, false
	}
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		var out Condition
		out.Status, _ = m["status"].(string)
		out.Message, _ = m["message"].(string)
		if since, ok := m["lastTransitionTime"].(string); ok {
			out.LastTransitionTime, _ = time.Parse(time.RFC3339, since)
		}
		return out, true
	}
	return Condition{}, false
}
