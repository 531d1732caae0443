package render

import (
	"fmt"
	"math/big"

	"github.com/zclconf/go-cty/cty"
)

// JSONValue converts a known, unmarked configuration value to the JSON-shaped Go values
// Kubernetes objects are made of (map[string]any, []any, string, int64, float64, bool), the shape
// unstructured.Unstructured requires. Whole numbers become int64 so that integer fields are typed
// the way the API server decodes them.
func JSONValue(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("value is not known before apply")
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		f := v.AsBigFloat()
		if f.IsInt() {
			if i, acc := f.Int64(); acc == big.Exact {
				return i, nil
			}
		}
		x, _ := f.Float64()
		return x, nil
	case ty.IsObjectType() || ty.IsMapType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			ev, err := JSONValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.AsString(), err)
			}
			out[k.AsString()] = ev
		}
		return out, nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		out := make([]any, 0, v.LengthInt())
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			ev, err := JSONValue(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = append(out, ev)
		}
		return out, nil
	case ty == cty.DynamicPseudoType:
		return nil, fmt.Errorf("value has no type")
	}
	return nil, fmt.Errorf("values of type %s cannot be part of a Kubernetes object", ty.FriendlyName())
}
