package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/funcs"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Result is what Load returns: the landscape as declared, its evaluation, and every file read
// (landscape and variable files) for rendering diagnostics.
type Result struct {
	Landscape *Landscape
	Evaluated *Evaluated
	Files     map[string]*hcl.File
}

// Load parses, decodes and evaluates the landscape in dir with input values from src. It is the
// one call behind validate and plan. Objects with parse errors, and what depends on them, are
// not evaluated, so that every reported problem is a root cause; everything else is, so that one
// run reports every independent problem. Syntax errors and reference cycles stop evaluation.
func Load(dir string, reg *schema.Registry, src InputSources) (*Result, hcl.Diagnostics) {
	return LoadWith(dir, reg, src, Hooks{})
}

// Hooks let the planner take part in evaluation without config knowing about rendering.
type Hooks struct {
	// Parsed, when set, is called with the landscape once it is parsed, before evaluation.
	Parsed func(l *Landscape)
	// Instance, when set, is called for every instance whose configuration decoded and passed its
	// checks, in dependency order, and returns the value references to the instance see (its
	// outputs). engine/rendering renders the component here, so that dependents are evaluated
	// with the outputs rendering knows before apply. Without it, outputs other than name are
	// unknown.
	// Error diagnostics mark the instance failed: its dependents see unknown values.
	Instance func(inst *Instance) (cty.Value, hcl.Diagnostics)
	// Now is the time landscape rules judge dates against (a cloud profile's expiration
	// dates); zero means the current time. The plan passes its evaluation time (plan --at).
	Now time.Time
	// Targets, when set, are the addresses a targeted plan names (--target): evaluation leaves
	// out the instances of independent types the targets do not need (Scope).
	Targets []string
}

// LoadWith is Load with hooks into evaluation.
func LoadWith(dir string, reg *schema.Registry, src InputSources, hooks Hooks) (*Result, hcl.Diagnostics) {
	res := &Result{Files: map[string]*hcl.File{}}
	l, diags := Parse(landscapefs.New(dir, src.Trust), reg)
	res.Landscape = l
	if l == nil {
		return res, diags
	}
	for name, f := range l.Files {
		res.Files[name] = f
	}
	if hooks.Parsed != nil {
		hooks.Parsed(l)
	}
	if !l.evaluable {
		return res, diags
	}
	in, d := CollectInputs(l, src)
	for name, f := range in.Files {
		res.Files[name] = f
	}
	diags = append(diags, d...)
	if d.HasErrors() {
		return res, diags
	}
	ev, d := EvaluateWith(l, in, funcs.Table(l.Paths), hooks)
	res.Evaluated = ev
	return res, dedupe(redactSensitive(append(diags, d...)))
}

// redactSensitive replaces the detail of every diagnostic whose expression reads a sensitive
// value: messages of functions and operators may quote their arguments ("\"...\" is not a CIDR
// prefix"), and a secret must never reach a terminal or a CI log.
func redactSensitive(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Expression == nil || d.EvalContext == nil {
			continue
		}
		for _, t := range d.Expression.Variables() {
			val, vd := t.TraverseAbs(d.EvalContext)
			if !vd.HasErrors() && containsMark(val, SensitiveMark) {
				d.Detail = "The expression uses a sensitive value; the details of this error are not shown because they could reveal it."
				break
			}
		}
	}
	return diags
}

// dedupe drops diagnostics identical to an earlier one: instances of an expanded block share
// their source, so a structural problem would otherwise be reported once per instance.
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		severity        hcl.DiagnosticSeverity
		summary, detail string
		subject         hcl.Range
	}
	seen := map[key]bool{}
	out := diags[:0]
	for _, d := range diags {
		k := key{severity: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.subject = *d.Subject
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}
