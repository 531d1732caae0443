package funcs

import (
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/declarative-gardener/gardener/engine/limits"
)

// bound wraps a function with the limits of engine/limits, so that no call can exhaust memory,
// overflow the stack or take minutes: no argument and no result may be larger than
// limits.MaxValueSize (a value whose parts go-cty shares counts as if they were copies, which is
// how functions that encode or convert it see it), and the functions that build more than they
// are given check what they would build before building it (prechecks). Errors name the
// argument at fault, so the diagnostic points at it.
//
// can and try take expressions rather than values and are left as they are; what they evaluate
// calls bounded functions.
func bound(name string, fn function.Function) function.Function {
	switch name {
	case "can", "try":
		return fn
	}
	pre := prechecks[name]
	return function.New(&function.Spec{
		Description: fn.Description(),
		Params:      fn.Params(),
		VarParam:    fn.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			for i, a := range args {
				if err := limits.CheckValue(a); err != nil {
					return cty.NilType, function.NewArgError(i, err)
				}
			}
			if pre != nil {
				if err := pre(args); err != nil {
					return cty.NilType, err
				}
			}
			return fn.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := fn.Call(args)
			if err != nil {
				return cty.NilVal, err
			}
			if err := limits.CheckValue(v); err != nil {
				return cty.NilVal, fmt.Errorf("the result of %s: %w", name, err)
			}
			return v, nil
		},
	})
}

// prechecks are the checks of functions whose result can be far larger than their arguments, or
// whose arguments a decoder or parser would take too long or too deep over. Each sees the
// arguments before the call, and leaves unknown or null ones to the function.
var prechecks = map[string]func(args []cty.Value) error{
	"setproduct": func(args []cty.Value) error {
		n := big.NewInt(1)
		for _, a := range args {
			a, _ = a.Unmark()
			if !a.IsKnown() || a.IsNull() || !a.CanIterateElements() {
				return nil
			}
			n.Mul(n, big.NewInt(int64(a.LengthInt())))
		}
		if n.Cmp(big.NewInt(limits.MaxElements)) > 0 {
			return fmt.Errorf("setproduct would build %s elements, more than the %d a collection builder may make", n, limits.MaxElements)
		}
		return nil
	},
	"replace": func(args []cty.Value) error {
		str, ok1 := stringArg(args, 0)
		substr, ok2 := stringArg(args, 1)
		repl, ok3 := stringArg(args, 2)
		if !ok1 || !ok2 || !ok3 {
			return nil
		}
		var size int64
		if len(substr) > 1 && strings.HasPrefix(substr, "/") && strings.HasSuffix(substr, "/") {
			// A regular expression matches at most once per character and once at the end;
			// each match is replaced by repl, whose $n references expand to parts of the
			// match, and since matches do not overlap each reference adds at most the string's
			// length over all of them.
			matches := int64(utf8.RuneCountInString(str) + 1)
			refs := int64(strings.Count(repl, "$"))
			size = int64(len(str)) + refs*int64(len(str)) + matches*int64(len(repl))
		} else {
			size = int64(len(str)) + int64(countOf(str, substr))*int64(len(repl))
		}
		return resultSize("replace", size)
	},
	"join": func(args []cty.Value) error {
		sep, ok := stringArg(args, 0)
		if !ok {
			return nil
		}
		var size, n int64
		for _, list := range args[1:] {
			list, _ = list.Unmark()
			if !list.IsKnown() || list.IsNull() || !list.CanIterateElements() {
				return nil
			}
			for it := list.ElementIterator(); it.Next(); {
				_, e := it.Element()
				e, _ = e.Unmark()
				if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
					size += int64(len(e.AsString()))
				}
				n++
			}
		}
		return resultSize("join", size+n*int64(len(sep)))
	},
	"indent": func(args []cty.Value) error {
		spaces, ok1 := intArg(args, 0)
		str, ok2 := stringArg(args, 1)
		if !ok1 || !ok2 {
			return nil
		}
		lines := int64(strings.Count(str, "\n") + 1)
		if spaces > limits.MaxValueSize {
			return resultSize("indent", spaces)
		}
		return resultSize("indent", int64(len(str))+spaces*lines)
	},
	"split": func(args []cty.Value) error {
		sep, ok1 := stringArg(args, 0)
		str, ok2 := stringArg(args, 1)
		if !ok1 || !ok2 {
			return nil
		}
		return resultSize("split", int64(len(str))+int64(countOf(str, sep)+1)*limits.ElementSize)
	},
	"regexall": func(args []cty.Value) error {
		str, ok := stringArg(args, 1)
		if !ok {
			return nil
		}
		// Matches are at most one more than the string's characters, and each is a value.
		return resultSize("regexall", int64(utf8.RuneCountInString(str)+1)*limits.ElementSize)
	},
	"format":     formatWidths,
	"formatlist": formatWidths,
	"tonumber":   numberText(0),
	"parseint":   numberText(0),
	"jsondecode": func(args []cty.Value) error {
		src, ok := stringArg(args, 0)
		if !ok {
			return nil
		}
		if err := decodeSize(src); err != nil {
			return err
		}
		if err := limits.JSONError([]byte(src)); err != nil {
			return function.NewArgErrorf(0, "invalid JSON: %s", err)
		}
		return nil
	},
	"yamldecode": func(args []cty.Value) error {
		src, ok := stringArg(args, 0)
		if !ok {
			return nil
		}
		if err := decodeSize(src); err != nil {
			return err
		}
		if n := yamlDocuments(src); n > 1 {
			return yamlError(src, nil)
		}
		if err := limits.YAML([]byte(src)); err != nil {
			return function.NewArgErrorf(0, "invalid YAML: %s", err)
		}
		return nil
	},
	"csvdecode": func(args []cty.Value) error {
		src, ok := stringArg(args, 0)
		if !ok {
			return nil
		}
		return decodeSize(src)
	},
}

// formatWidths refuses a format whose widths or precisions would pad a value to gigabytes.
func formatWidths(args []cty.Value) error {
	f, ok := stringArg(args, 0)
	if !ok {
		return nil
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		j := i + 1
		for ; j < len(f) && !isVerb(f[j]); j++ {
			if f[j] < '0' || f[j] > '9' {
				continue
			}
			k := j
			for k < len(f) && f[k] >= '0' && f[k] <= '9' {
				k++
			}
			if k-j > 5 || atoi(f[j:k]) > limits.MaxFormatWidth {
				return function.NewArgErrorf(0, "the width or precision %s is larger than %d, the most a format may pad to", f[j:k], limits.MaxFormatWidth)
			}
			j = k - 1
		}
		i = j
	}
	return nil
}

// isVerb reports whether b ends a format verb (a letter, or the % of "%%").
func isVerb(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '%' }

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// numberText refuses a number written with more characters than a number can hold, whose
// parsing would take time quadratic in its length.
func numberText(i int) func(args []cty.Value) error {
	return func(args []cty.Value) error {
		if s, ok := stringArg(args, i); ok && len(strings.TrimSpace(s)) > limits.MaxNumberLength {
			return function.NewArgErrorf(i, "the number is written with %d characters, more than the %d a number may have", len(s), limits.MaxNumberLength)
		}
		return nil
	}
}

func decodeSize(src string) error {
	if len(src) > limits.MaxDecodeSize {
		return function.NewArgErrorf(0, "the string is %d bytes long; documents of more than %d MiB are not decoded", len(src), limits.MaxDecodeSize>>20)
	}
	return nil
}

// resultSize refuses a result of size bytes larger than limits.MaxValueSize.
func resultSize(name string, size int64) error {
	if size > limits.MaxValueSize {
		return fmt.Errorf("the result of %s would be larger than %d MiB, the most a landscape value may take", name, limits.MaxValueSize>>20)
	}
	return nil
}

// countOf is how often substr occurs in s, as strings.Replace and strings.Split count it (the
// empty string occurs before every character and at the end).
func countOf(s, substr string) int {
	if substr == "" {
		return utf8.RuneCountInString(s) + 1
	}
	return strings.Count(s, substr)
}

// stringArg is argument i when it is a known string.
func stringArg(args []cty.Value, i int) (string, bool) {
	if i >= len(args) {
		return "", false
	}
	v, _ := args[i].Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// intArg is argument i when it is a known whole number.
func intArg(args []cty.Value, i int) (int64, bool) {
	if i >= len(args) {
		return 0, false
	}
	v, _ := args[i].Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return 0, false
	}
	n, _ := v.AsBigFloat().Int64() // saturates, which is as good for a bound
	return n, true
}
