package limits

import (
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// MaxIterations is how many elements the for expressions of one evaluation may iterate over in
// all, counted each time a for expression runs: [for a in x : [for b in y : ...]] counts len(x)
// plus len(x) times len(y). A landscape of 10,000 shoots spread over three seeds iterates over
// about 40,000; the quarter million allowed take under a second on an idle machine and at most
// about 60 MiB when each iteration makes a number, so nested loops cannot keep gardener busy for
// hours. (A landscape that filters every shoot for each of hundreds of seeds should group them
// once instead: {for name, s in shoots : s.seed => name...}.)
const MaxIterations = 250_000

// IterationFunction is the name of the function BoundForExpressions wraps the collection of
// every for expression in. Named like the keyword, it reads well in the message of a failed call
// ("Call to function \"for\" failed") and cannot clash with a function of the landscape's.
const IterationFunction = "for"

// BoundForExpressions rewrites every for expression under node (template for directives
// included) to pass its collection through IterationFunction, which counts the elements before
// the loop runs; the evaluation context must offer that function (Iterations.Function). The
// collection stays a child node of the call, so walkers and reference analysis still see it.
func BoundForExpressions(node hclsyntax.Node) {
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		fe, ok := n.(*hclsyntax.ForExpr)
		if !ok {
			return nil
		}
		if call, done := fe.CollExpr.(*hclsyntax.FunctionCallExpr); done && call.Name == IterationFunction {
			return nil
		}
		r := fe.CollExpr.Range()
		fe.CollExpr = &hclsyntax.FunctionCallExpr{
			Name: IterationFunction, Args: []hclsyntax.Expression{fe.CollExpr},
			NameRange: r, OpenParenRange: r, CloseParenRange: r,
		}
		return nil
	})
}

// Iterations counts what the for expressions of one evaluation iterate over. The zero value is
// ready to use; one counter may be shared by concurrent evaluations, which then share the budget.
type Iterations struct {
	n        atomic.Int64
	reported atomic.Bool
}

// Function is IterationFunction counting in it: it returns its argument unchanged (marks,
// unknowns and nulls included) while the count stays within MaxIterations. The call that goes past
// it fails; any after that yields an unknown value at once, so that the loops around it stop
// doing work without a diagnostic each.
func (it *Iterations) Function() function.Function {
	return function.New(&function.Spec{
		Description: "Counts the elements a for expression iterates over (limits.MaxIterations).",
		Params: []function.Parameter{{
			Name: "collection", Type: cty.DynamicPseudoType,
			AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true,
		}},
		Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v := args[0]
			if it.n.Load() > MaxIterations {
				return cty.UnknownVal(v.Type()), nil
			}
			uv, _ := v.Unmark()
			if !uv.IsKnown() || uv.IsNull() || !uv.CanIterateElements() {
				return v, nil
			}
			if it.n.Add(int64(uv.LengthInt())) <= MaxIterations || it.reported.Swap(true) {
				if it.n.Load() > MaxIterations {
					return cty.UnknownVal(v.Type()), nil
				}
				return v, nil
			}
			return cty.NilVal, fmt.Errorf("the for expressions of this landscape iterate over more than %d elements in all, "+
				"the most one evaluation may (nested for expressions multiply); docs/security.md lists the limits", MaxIterations)
		},
	})
}

// Functions is a function table with only it.Function, for expressions evaluated without the
// landscape's functions (constants such as a variable's default).
func (it *Iterations) Functions() map[string]function.Function {
	return map[string]function.Function{IterationFunction: it.Function()}
}
