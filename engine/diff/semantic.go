package diff

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Named OpenAPI types whose values the API server canonicalises when it decodes a built-in
// object, so that different spellings of one value are not a change.
const (
	quantityType  = "io.k8s.apimachinery.pkg.api.resource.Quantity"
	timeType      = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
	microTimeType = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
)

// scalarEqual compares two scalar values semantically: numbers numerically (1 == 1.0), quantities
// by amount ("1000m" == "1", "1Gi" == "1024Mi") and timestamps by instant.
func scalarEqual(a, b any, tr smdschema.TypeRef) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok && x == y {
			return true
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case nil:
		return b == nil
	}
	if fa, ok := number(a); ok {
		if fb, ok := number(b); ok && numbersEqual(a, b, fa, fb) {
			return true
		}
	}
	if tr.NamedType == nil {
		return false
	}
	switch *tr.NamedType {
	case quantityType:
		qa, errA := resource.ParseQuantity(scalarString(a))
		qb, errB := resource.ParseQuantity(scalarString(b))
		return errA == nil && errB == nil && qa.Cmp(qb) == 0
	case timeType, microTimeType:
		ta, errA := time.Parse(time.RFC3339Nano, scalarString(a))
		tb, errB := time.Parse(time.RFC3339Nano, scalarString(b))
		return errA == nil && errB == nil && ta.Equal(tb)
	}
	return false
}

// number returns a JSON number as float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// numbersEqual compares integers exactly and anything else as float64.
func numbersEqual(a, b any, fa, fb float64) bool {
	ia, aInt := a.(int64)
	ib, bInt := b.(int64)
	if aInt && bInt {
		return ia == ib
	}
	return fa == fb && !math.IsNaN(fa)
}

func scalarString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := number(v); ok {
		if i, isInt := v.(int64); isInt {
			return strconv.FormatInt(i, 10)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}

// deepEqual compares two schema-less JSON values, numbers numerically.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if _, ok := b.(map[string]any); ok {
		return false
	}
	if _, ok := b.([]any); ok {
		return false
	}
	return scalarEqual(a, b, smdschema.TypeRef{})
}
