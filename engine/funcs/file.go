package funcs

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/limits"
)

// makeFileFunc returns file(path): the contents of a UTF-8 text file. Relative paths are
// resolved against dir, the landscape directory, so a landscape renders the same wherever
// gardener is started from.
func makeFileFunc(dir *landscapefs.Dir) function.Function {
	return function.New(&function.Spec{
		Description:  "Returns the contents of the UTF-8 text file at path, relative to the landscape directory.",
		Params:       []function.Parameter{{Name: "path", Type: cty.String}},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: refineNotNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			src, err := readTextFile(dir, args[0].AsString())
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			return cty.StringVal(src), nil
		},
	})
}

// makeTemplateFileFunc returns templatefile(path, vars): the file rendered as an HCL template
// with vars as its variables and funcs as its functions. funcs must not contain templatefile,
// which keeps templates from including themselves forever.
//
// The result is always a string: a template that is a single interpolation of another type
// ("${42}") is converted, and one that cannot be (a list, say) is an error.
func makeTemplateFileFunc(dir *landscapefs.Dir, funcs map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Description: "Renders the file at path, relative to the landscape directory, as a template with vars as its variables.",
		Params: []function.Parameter{
			{Name: "path", Type: cty.String},
			{Name: "vars", Type: cty.DynamicPseudoType, AllowDynamicType: true},
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			ty := args[1].Type()
			if !ty.IsObjectType() && !ty.IsMapType() && ty != cty.DynamicPseudoType {
				return cty.NilType, function.NewArgErrorf(1, "vars must be an object or a map, not %s", ty.FriendlyName())
			}
			return cty.String, nil
		},
		RefineResult: refineNotNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			src, err := readTextFile(dir, path)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			vars := make(map[string]cty.Value)
			for it := args[1].ElementIterator(); it.Next(); {
				k, v := it.Element()
				name := k.AsString()
				if !hclsyntax.ValidIdentifier(name) {
					return cty.NilVal, function.NewArgErrorf(1,
						"%q cannot be a template variable: names start with a letter and contain only letters, digits, underscores and dashes", name)
				}
				vars[name] = v
			}
			return renderTemplate(path, src, vars, funcs)
		},
	})
}

// renderTemplate parses and evaluates one template. Its diagnostics become one error that names
// the file and position, since the caller only reports the templatefile call site.
func renderTemplate(filename, src string, vars map[string]cty.Value, funcs map[string]function.Function) (cty.Value, error) {
	if diags := limits.HCL([]byte(src), filename, hcl.InitialPos, true); diags.HasErrors() {
		return cty.NilVal, diagsError("cannot parse template", diags)
	}
	expr, diags := hclsyntax.ParseTemplate([]byte(src), filename, hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, diagsError("cannot parse template", diags)
	}
	limits.BoundForExpressions(expr)
	val, diags := expr.Value(&hcl.EvalContext{Variables: vars, Functions: funcs})
	if diags.HasErrors() {
		return cty.NilVal, diagsError("cannot render template", diags)
	}
	str, err := convert.Convert(val, cty.String)
	if err != nil {
		return cty.NilVal, fmt.Errorf("template %s produced %s, not a string", filename, val.Type().FriendlyName())
	}
	return str, nil
}

// diagsError joins the error diagnostics as "what: file:line,column: summary: detail; ...".
func diagsError(what string, diags hcl.Diagnostics) error {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := lowerFirst(d.Summary)
		if d.Detail != "" {
			msg += ": " + lowerFirst(strings.TrimSuffix(d.Detail, "."))
		}
		if d.Subject != nil {
			msg = fmt.Sprintf("%s:%d,%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, msg)
		}
		parts = append(parts, msg)
	}
	return fmt.Errorf("%s: %s", what, strings.Join(parts, "; "))
}

// lowerFirst lower-cases the first letter of an HCL summary ("Unknown variable") so it reads
// as part of a Go error message.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// readTextFile reads a file the landscape names and insists on UTF-8 text since cty strings are
// Unicode.
func readTextFile(dir *landscapefs.Dir, path string) (string, error) {
	raw, err := dir.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(raw) {
		full, _ := dir.Path(path)
		return "", fmt.Errorf("contents of %s are not valid UTF-8 text", full)
	}
	return string(raw), nil
}
