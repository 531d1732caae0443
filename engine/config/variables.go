package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/funcs"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/limits"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// SensitiveMark marks cty values that must never be printed: sensitive variables, sensitive
// outputs, values passed through sensitive() and everything computed from them (go-cty carries
// marks through operations). sensitive() sets it, so engine/funcs defines it.
const SensitiveMark = funcs.SensitiveMark

// InputValue is a raw value given for an input variable, with where it came from.
type InputValue struct {
	// Expr is parsed from the flag, environment variable or variable file.
	Expr hcl.Expression
	// Source describes the origin for diagnostics without a file, e.g. "--var".
	Source string
	// Sensitive is set for a value from a source that holds secrets
	// (schema.SensitiveVariableEnvPrefix): it is marked sensitive even where its variable is not.
	Sensitive bool
}

// Inputs are the input values by variable name, in precedence order already applied.
type Inputs struct {
	values map[string]InputValue
	// Files holds parsed variable files, for rendering diagnostics.
	Files map[string]*hcl.File
}

// InputSources say where input values come from; later sources win: environment, then each
// variable file in order, then each --var in order.
type InputSources struct {
	Environ  []string
	VarFiles []string
	// Values are typed values, such as a saved plan's; they override files and the
	// environment, and --var overrides them.
	Values map[string]cty.Value
	Vars   []string
	// Trust is how far the operator trusts the landscape directory: confined mode and the
	// operator's own kubeconfig directories (docs/security.md). It travels with the input
	// sources because every command that loads a landscape takes both from its flags.
	Trust landscapefs.Policy
}

// CollectInputs gathers input values from their sources. Values for variables the landscape does
// not declare are errors on the command line and warnings in files and the environment (a shared
// variable file may serve several landscapes).
func CollectInputs(l *Landscape, src InputSources) (*Inputs, hcl.Diagnostics) {
	in := &Inputs{values: map[string]InputValue{}, Files: map[string]*hcl.File{}}
	var diags hcl.Diagnostics
	// Plain environment variables first, so that a sensitive one of the same name wins.
	for _, prefix := range []string{schema.VariableEnvPrefix, schema.SensitiveVariableEnvPrefix} {
		for _, kv := range src.Environ {
			key, value, ok := strings.Cut(kv, "=")
			if !ok || !strings.HasPrefix(key, prefix) {
				continue
			}
			name := strings.TrimPrefix(key, prefix)
			if _, declared := l.Variables[name]; !declared {
				continue // environments carry variables for other landscapes too
			}
			expr, d := rawValueExpr(l.Variables[name], value, "environment variable "+key)
			diags = append(diags, d...)
			if expr != nil {
				in.values[name] = InputValue{Expr: expr, Source: "environment variable " + key, Sensitive: prefix == schema.SensitiveVariableEnvPrefix}
			}
		}
	}
	for _, path := range src.VarFiles {
		diags = append(diags, in.readVarFile(l, path)...)
	}
	for _, name := range slices.Sorted(maps.Keys(src.Values)) {
		if _, declared := l.Variables[name]; declared {
			in.values[name] = InputValue{Expr: hcl.StaticExpr(src.Values[name], hcl.Range{Filename: "<saved plan>"}), Source: "saved plan"}
		}
	}
	for _, flag := range src.Vars {
		name, value, ok := strings.Cut(flag, "=")
		if !ok || name == "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid --var option",
				Detail: fmt.Sprintf("The option --var %q is not of the form NAME=VALUE.", flag),
			})
			continue
		}
		v, declared := l.Variables[name]
		if !declared {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Value for undeclared variable",
				Detail: fmt.Sprintf("The landscape declares no variable %q (given with --var).%s", name, diag.DidYouMean(name, slices.Sorted(maps.Keys(l.Variables)))),
			})
			continue
		}
		expr, d := rawValueExpr(v, value, "--var "+name)
		diags = append(diags, d...)
		if expr != nil {
			in.values[name] = InputValue{Expr: expr, Source: "--var " + name}
		}
	}
	return in, diags
}

// rawValueExpr turns a command-line or environment string into an expression: a string for
// variables of primitive or unknown type, HCL syntax for collections and objects (as Terraform
// does), e.g. --var 'zones=["a","b"]'.
func rawValueExpr(v *Variable, raw, source string) (hcl.Expression, hcl.Diagnostics) {
	if v.Type.IsPrimitiveType() || v.Type == cty.DynamicPseudoType {
		return hcl.StaticExpr(cty.StringVal(raw), hcl.Range{Filename: "<" + source + ">"}), nil
	}
	if d := limits.HCL([]byte(raw), "<"+source+">", hcl.InitialPos, false); d.HasErrors() {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid value for input variable",
			Detail: fmt.Sprintf("The value of %s for variable %q: %s", source, v.Name, d[0].Detail),
		}}
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "<"+source+">", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid value for input variable",
			Detail: fmt.Sprintf("The value of %s for variable %q is not a valid HCL expression for its type %s.", source, v.Name, v.Type.FriendlyName()),
		}}
	}
	return expr, nil
}

func (in *Inputs) readVarFile(l *Landscape, path string) hcl.Diagnostics {
	// A variable file is the operator's: it is not confined, but like every file it is read
	// only if it is a regular file of bounded size and nesting.
	src, err := landscapefs.ReadRegular(path)
	if err != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Unreadable variable file",
			Detail: fmt.Sprintf("The variable file %s cannot be read: %s.", path, readError(err)),
		}}
	}
	if d := limits.HCL(src, path, hcl.InitialPos, false); d.HasErrors() {
		return d
	}
	file, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	in.Files[path] = file
	if diags.HasErrors() {
		return diags
	}
	attrs, ad := file.Body.JustAttributes()
	diags = append(diags, ad...)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		attr := attrs[name]
		if _, declared := l.Variables[name]; !declared {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning, Summary: "Value for undeclared variable",
				Detail:  fmt.Sprintf("The landscape declares no variable %q; this value is ignored.%s", name, diag.DidYouMean(name, slices.Sorted(maps.Keys(l.Variables)))),
				Subject: attr.NameRange.Ptr(),
			})
			continue
		}
		in.values[name] = InputValue{Expr: attr.Expr, Source: "variable file " + path}
	}
	return diags
}

// evaluateVariables computes every variable's value: input, else default, else an error; then
// converts it to the declared type, runs the validation rules and marks sensitive values.
func evaluateVariables(l *Landscape, in *Inputs, ctx *hcl.EvalContext) (map[string]cty.Value, hcl.Diagnostics) {
	values := map[string]cty.Value{}
	var diags hcl.Diagnostics
	names := slices.Sorted(maps.Keys(l.Variables))
	for _, name := range names {
		v := l.Variables[name]
		if l.invalid[Address("var."+name)] {
			continue // its declaration was reported; dependents see an unknown value
		}
		var val cty.Value
		var subject *hcl.Range
		input, given := InputValue{}, false
		if in != nil {
			input, given = in.values[name]
		}
		switch {
		case given:
			// Values are constants: no references, but functions are allowed.
			got, d := input.Expr.Value(&hcl.EvalContext{Functions: ctx.Functions})
			if d.HasErrors() {
				diags = append(diags, d...)
				continue
			}
			val, subject = got, input.Expr.Range().Ptr()
			if input.Sensitive {
				val = val.Mark(SensitiveMark)
			}
			if subject.Filename == "" || strings.HasPrefix(subject.Filename, "<") {
				subject = v.DeclRange.Ptr()
			}
		case v.Default != cty.NilVal:
			val, subject = v.Default, v.DeclRange.Ptr()
		default:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "No value for required variable",
				Detail:  fmt.Sprintf("The variable %q has no default, so a value must be given with --var %s=..., a --var-file or the environment variable %s%s.", name, name, schema.VariableEnvPrefix, name),
				Subject: v.DeclRange.Ptr(),
			})
			continue
		}
		if d := checkSize(val, subject); d != nil {
			diags = append(diags, d)
			continue
		}
		converted, err := convert.Convert(val, v.Type)
		if err != nil {
			from := "the default"
			if given {
				from = input.Source
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid value for input variable",
				Detail:  fmt.Sprintf("The value from %s for variable %q is not compatible with its type %s: %s.", from, name, v.Type.FriendlyName(), err),
				Subject: subject,
			})
			continue
		}
		if v.Sensitive {
			converted = converted.Mark(SensitiveMark)
		}
		vd := validateVariable(v, converted, ctx)
		diags = append(diags, vd...)
		if !vd.HasErrors() {
			values[name] = converted
		}
	}
	return values, diags
}

func validateVariable(v *Variable, val cty.Value, base *hcl.EvalContext) hcl.Diagnostics {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.Name: val})},
		Functions: base.Functions,
	}
	var diags hcl.Diagnostics
	for _, rule := range v.Validations {
		if rule.invalid {
			continue // its condition's references were reported
		}
		result, d := rule.Condition.Value(ctx)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		result, _ = result.Unmark()
		if !result.IsKnown() {
			continue // decided once the value is known
		}
		if result.IsNull() || !result.Type().Equals(cty.Bool) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid validation condition",
				Detail: "The condition of a validation rule must be true or false.", Subject: rule.Condition.Range().Ptr(),
			})
			continue
		}
		if result.True() {
			continue
		}
		msg := "The value of the variable does not satisfy a validation rule."
		if m, md := rule.ErrorMessage.Value(ctx); !md.HasErrors() {
			m, marks := m.Unmark()
			switch {
			case len(marks) > 0:
				msg = "The value of the variable does not satisfy a validation rule; the rule's error message is not shown because it includes a sensitive value."
			case m.IsKnown() && !m.IsNull() && m.Type().Equals(cty.String):
				msg = m.AsString()
			}
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail:  fmt.Sprintf("%s\n\nThis was checked by the validation rule at %s.", msg, rule.DeclRange),
			Subject: rule.Condition.Range().Ptr(),
		})
	}
	return diags
}
