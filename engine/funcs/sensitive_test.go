package funcs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func TestSensitiveMarksItsValue(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want cty.Value
	}{
		{name: "string", expr: `sensitive("hunter2")`, want: cty.StringVal("hunter2")},
		{name: "number", expr: `sensitive(42)`, want: cty.NumberIntVal(42)},
		{name: "object", expr: `sensitive({ token = "t" })`, want: cty.ObjectVal(map[string]cty.Value{"token": cty.StringVal("t")})},
		{name: "null keeps its type", expr: `sensitive(null)`, want: cty.NullVal(cty.DynamicPseudoType)},
		{name: "the mark travels through operations", expr: `upper(sensitive("abc"))`, want: cty.StringVal("ABC")},
		{name: "and into collections", expr: `{ key = sensitive("abc") }.key`, want: cty.StringVal("abc")},
		{name: "marking twice is marking once", expr: `sensitive(sensitive("abc"))`, want: cty.StringVal("abc")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := eval(t, ".", tt.expr, nil)
			require.False(t, diags.HasErrors(), diags.Error())
			assert.True(t, got.HasMark(SensitiveMark), "the result is marked sensitive")
			unmarked, marks := got.Unmark()
			assert.Len(t, marks, 1)
			assert.True(t, tt.want.RawEquals(unmarked), "got %#v", unmarked)
		})
	}
}

func TestSensitiveOfUnknownIsUnknownAndMarked(t *testing.T) {
	got, diags := eval(t, ".", `sensitive(s)`, map[string]cty.Value{"s": cty.UnknownVal(cty.String)})
	require.False(t, diags.HasErrors(), diags.Error())
	assert.False(t, got.IsKnown())
	assert.True(t, got.HasMark(SensitiveMark))
	assert.Equal(t, cty.String, got.Type())
}
