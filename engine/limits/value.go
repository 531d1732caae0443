package limits

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// ErrTooLarge is the error of a value larger than MaxValueSize.
var ErrTooLarge = fmt.Errorf("the value is larger than %d MiB, the most a landscape value may take", MaxValueSize>>20)

// CheckValue returns ErrTooLarge when v is larger than MaxValueSize: the bytes of its strings
// plus ElementSize for every value in it. go-cty shares values, so a chain of locals that each
// doubles the one before is small in memory but expands exponentially wherever it is encoded,
// converted or rendered; the count is of the expansion, and stops as soon as it passes the
// limit, so checking takes no longer than the value is allowed to be.
func CheckValue(v cty.Value) error {
	if Size(v, MaxValueSize) > MaxValueSize {
		return ErrTooLarge
	}
	return nil
}

// Size is the size of v as CheckValue counts it, counting stopped once it passes max (the
// result is then above max but otherwise meaningless).
func Size(v cty.Value, max int) int {
	total := 0
	var walk func(v cty.Value) bool
	walk = func(v cty.Value) bool {
		v, _ = v.Unmark()
		total += ElementSize
		if total > max {
			return false
		}
		if v.IsNull() || !v.IsKnown() {
			return true
		}
		ty := v.Type()
		switch {
		case ty == cty.String:
			total += len(v.AsString())
		case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				if ty.IsMapType() || ty.IsObjectType() {
					k, _ = k.Unmark()
					total += len(k.AsString())
				}
				if !walk(e) {
					return false
				}
			}
		}
		return total <= max
	}
	walk(v)
	return total
}
