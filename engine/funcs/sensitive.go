package funcs

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// SensitiveMark marks cty values that must never be printed: sensitive variables, sensitive
// outputs, values passed through sensitive() and everything computed from them (go-cty carries
// marks through operations). It is defined here, the lowest layer that needs it, because
// sensitive() sets it; engine/config re-exports it as config.SensitiveMark.
const SensitiveMark = sensitiveMark("sensitive")

type sensitiveMark string

// sensitiveFunc is Terraform's sensitive(value): it returns value marked sensitive, so that
// everything derived from it is redacted wherever it would be shown (plans, errors, status),
// like a variable declared `sensitive = true`. A value that is a secret although nothing
// declares it so (a token read with file(), a literal in a local) is marked where it starts.
var sensitiveFunc = function.New(&function.Spec{
	Description: "Returns value marked sensitive: it and everything computed from it are never shown.",
	Params: []function.Parameter{{
		Name: "value", Type: cty.DynamicPseudoType,
		AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Mark(SensitiveMark), nil
	},
})
