package limits

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func TestHCLNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	tests := []struct {
		name     string
		src      string
		template bool
		refused  bool
	}{
		{name: "ordinary", src: "a = { b = [1, (2 + 3) * 4, !x ? y : z] }\nc = \"${d}-%{if e}f%{endif}\"\n"},
		{name: "parentheses within the limit", src: "a = " + deep("(", ")", MaxNesting-1) + "\n"},
		{name: "parentheses", src: "a = " + deep("(", ")", 100000) + "\n", refused: true},
		{name: "lists", src: "a = " + deep("[", "]", 100000) + "\n", refused: true},
		{name: "objects", src: "a = " + strings.Repeat("{b = ", 100000) + "1" + strings.Repeat("}", 100000) + "\n", refused: true},
		{name: "blocks", src: strings.Repeat("b {\n", 1000) + strings.Repeat("}\n", 1000), refused: true},
		{name: "negations", src: "a = " + strings.Repeat("!", 100000) + "true\n", refused: true},
		{name: "conditionals", src: "a = " + strings.Repeat("x ? 1 : ", 100000) + "0\n", refused: true},
		{name: "conditionals over lines in parentheses", src: "a = (" + strings.Repeat("x ? 1 :\n", 100000) + "0)\n", refused: true},
		{name: "index chain", src: "a = x" + strings.Repeat("[0]", 100000) + "\n", refused: true},
		{name: "sums", src: "a = " + strings.Repeat("1 + ", 100000) + "1\n", refused: true},
		{name: "many attributes", src: strings.Repeat("a = x ? 1 : !y\n", 10000)},
		{name: "many list items", src: "a = [" + strings.Repeat("x ? 1 : 2,\n", 10000) + "]\n"},
		{name: "nested interpolations", src: "a = " + strings.Repeat(`"${`, 10000) + "1" + strings.Repeat(`}"`, 10000) + "\n", refused: true},
		{name: "template directives", src: strings.Repeat("%{if x}", 1000) + strings.Repeat("%{endif}", 1000), template: true, refused: true},
		{name: "template of parentheses", src: "${" + deep("(", ")", 100000) + "}", template: true, refused: true},
		{name: "ordinary template", src: "%{for x in y}${x}%{endfor}", template: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := HCL([]byte(tt.src), "main.hcl", hcl.InitialPos, tt.template)
			if !tt.refused {
				assert.Empty(t, diags)
				return
			}
			require.Len(t, diags, 1)
			assert.Equal(t, "Nesting too deep", diags[0].Summary)
			assert.Equal(t, "main.hcl", diags[0].Subject.Filename)
		})
	}
}

func TestJSONNesting(t *testing.T) {
	diags := JSON([]byte(`{"a": [`+strings.Repeat("[", 1000)+`]}`), "x.hcl.json", false)
	require.Len(t, diags, 1)
	assert.Equal(t, 1, diags[0].Subject.Start.Line)
	assert.Equal(t, 8+MaxNesting-2, diags[0].Subject.Start.Column, "at the bracket that is one level too deep")

	assert.Empty(t, JSON([]byte(`{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[[[["}`), "x.hcl.json", false), "brackets in strings do not count")
	assert.Empty(t, JSON([]byte(`{"a": [[[[1]]]]}`), "x.hcl.json", true))

	tmpl := `{"locals": {"a": "${` + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000) + `}"}}`
	assert.Len(t, JSON([]byte(tmpl), "x.hcl.json", true), 1, "HCL's JSON syntax parses strings as templates")
	assert.Empty(t, JSON([]byte(tmpl), "x.json", false), "plain JSON does not")
}

func TestYAML(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for _, c := range "bcdefghi" {
		prev := string(c - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	assert.ErrorContains(t, YAML([]byte(laughs)), "aliases expand the document")
	assert.NoError(t, YAML([]byte("d: &d {a: 1}\nx: *d\ny: [*d, *d]\n")))
	assert.ErrorContains(t, YAML([]byte(strings.Repeat("[", MaxNesting+1)+strings.Repeat("]", MaxNesting+1))), "nested deeper than")
	assert.NoError(t, YAML([]byte(strings.Repeat("[", MaxNesting)+strings.Repeat("]", MaxNesting))))
	assert.ErrorContains(t, YAML([]byte(strings.Repeat("- ", 1000)+"x")), "nested deeper than")
	assert.Error(t, YAML([]byte("a: &a\n  b: *a\n")), "an alias inside its own anchor")
	assert.Error(t, YAML([]byte(strings.Repeat("[", 100000))), "the parser's own bound")
	assert.NoError(t, YAML(nil))
}

func TestValueSize(t *testing.T) {
	// A chain of values each holding the one before twice: 40 levels are 2^40 strings.
	v := cty.StringVal("x")
	for range 40 {
		v = cty.TupleVal([]cty.Value{v, v})
	}
	assert.ErrorIs(t, CheckValue(v), ErrTooLarge)
	assert.NoError(t, CheckValue(cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("b").Mark("sensitive")})))
	assert.ErrorIs(t, CheckValue(cty.StringVal(strings.Repeat("x", MaxValueSize))), ErrTooLarge)
	assert.Equal(t, 2*ElementSize+2, Size(cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}).Mark("m"), MaxValueSize))
}

func TestLongNumbers(t *testing.T) {
	long := strings.Repeat("1", MaxNumberLength+1)
	diags := HCL([]byte("a = "+long+"\n"), "main.hcl", hcl.InitialPos, false)
	require.Len(t, diags, 1)
	assert.Equal(t, "Number too long", diags[0].Summary)
	assert.Empty(t, HCL([]byte("a = "+long[1:]+"\nb = \""+long+"\"\n"), "main.hcl", hcl.InitialPos, false), "within the limit, and digits in a string")

	assert.ErrorContains(t, JSONError([]byte(`[`+long+`]`)), "more than 256 characters")
	assert.NoError(t, JSONError([]byte(`["`+long+`", 1e10, true, false, null]`)))
	assert.ErrorContains(t, YAML([]byte("a: "+long+"\n")), "more than 256 characters")
	assert.NoError(t, YAML([]byte("a: \""+long+"\"\nb: x"+long+"\n")), "strings of digits are no numbers")
}
