package readiness

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Readers for the loosely typed status fields every rule needs. Unstructured numbers arrive as
// int64 (from JSON decoding in client-go) or float64 (from hand-built test objects), so both are
// accepted.

// intField returns the integer at path and whether it is set.
func intField(obj *unstructured.Unstructured, path ...string) (int64, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if err != nil || !found || v == nil {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// intOr returns the integer at path, or def when it is not set.
func intOr(obj *unstructured.Unstructured, def int64, path ...string) int64 {
	if n, ok := intField(obj, path...); ok {
		return n
	}
	return def
}

// stringField returns the string at path, or "".
func stringField(obj *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(obj.Object, path...)
	return s
}

// generationBehind reports whether the object's controller has not yet observed its current spec:
// status.observedGeneration is set and lower than metadata.generation. Gardener uses the same test
// to decide that a reconcile is due (Gardener's "gardenlet" docs/concepts/gardenlet.md).
func generationBehind(obj *unstructured.Unstructured) (Status, bool) {
	observed, ok := intField(obj, "status", "observedGeneration")
	if !ok {
		return Status{}, false
	}
	return observedBehind(obj, observed)
}

// requireObserved is generationBehind for kinds whose controller always writes
// status.observedGeneration: a missing one means the controller has not reconciled the object yet.
func requireObserved(obj *unstructured.Unstructured) (Status, bool) {
	observed, ok := intField(obj, "status", "observedGeneration")
	if !ok {
		return notReady("not reconciled yet (no status.observedGeneration)"), true
	}
	return observedBehind(obj, observed)
}

func observedBehind(obj *unstructured.Unstructured, observed int64) (Status, bool) {
	if generation := obj.GetGeneration(); generation > 0 && observed < generation {
		return notReady(fmt.Sprintf("generation %d not observed yet (status.observedGeneration %d)", generation, observed)), true
	}
	return Status{}, false
}

// joinReasons joins partial reasons in the order given.
func joinReasons(parts []string) string { return strings.Join(parts, "; ") }

// withDetail appends a parenthesised detail such as a condition message to a reason.
func withDetail(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + " (" + detail + ")"
}
