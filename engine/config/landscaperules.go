package config

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// This file runs the registry's landscape rules (schema.LandscapeRule) on the evaluated landscape
// and turns their findings into diagnostics at the narrowest range written in the source. The
// rules see every instance's decoded configuration; instances of blocks with errors are marked
// failed, so that rules report only root causes.

// instancesShown bounds how many instance addresses a grouped diagnostic names.
const instancesShown = 3

// checkLandscape runs the landscape rules at time now (zero: the current time).
func (e *Evaluated) checkLandscape(now time.Time) hcl.Diagnostics {
	if len(e.Landscape.rules) == 0 {
		return nil
	}
	if now.IsZero() {
		now = time.Now()
	}
	loc := &locator{schemas: map[*schema.Body]*hcl.BodySchema{}}
	view, instances := e.view(now, loc)
	var findings []schema.Finding
	for _, rule := range e.Landscape.rules {
		findings = append(findings, rule.Func(view)...)
	}
	return e.findingDiagnostics(findings, instances, loc)
}

// locator finds what is written at attribute paths of block bodies. It keeps the HCL schema of
// each body type, which is costly to derive and asked for once per instance of a block.
type locator struct {
	schemas map[*schema.Body]*hcl.BodySchema
}

func (l *locator) schema(sb *schema.Body) *hcl.BodySchema {
	hs, ok := l.schemas[sb]
	if !ok {
		hs = hcldec.ImpliedSchema(sb.Spec())
		l.schemas[sb] = hs
	}
	return hs
}

// viewed is an instance as the rules saw it, with what maps its findings back to the source.
type viewed struct {
	block  *Block
	key    cty.Value
	failed bool
}

// view builds the rules' view: every instance, and a failed placeholder for every block that
// failed before it had instances, so that rules treat what it declares as unknown.
func (e *Evaluated) view(now time.Time, loc *locator) (*schema.LandscapeView, map[string]viewed) {
	byBlock := map[Address][]*Instance{}
	for _, inst := range e.Instances {
		byBlock[inst.Block.Addr] = append(byBlock[inst.Block.Addr], inst)
	}
	view := &schema.LandscapeView{Now: now}
	seen := map[string]viewed{}
	for addr, b := range e.Landscape.Blocks {
		failed := e.failed[addr]
		typ := b.Type
		if b.Kind != schema.KindComponent {
			typ = string(b.Kind)
		}
		insts := byBlock[addr]
		if len(insts) == 0 {
			if failed {
				view.Instances = append(view.Instances, &schema.InstanceView{
					Addr: string(addr), Block: string(addr), Kind: b.Kind, Type: typ, Name: b.Name,
					Config: cty.DynamicVal, Failed: true,
				})
				seen[string(addr)] = viewed{block: b, key: cty.NilVal, failed: true}
			}
			continue
		}
		for _, inst := range insts {
			view.Instances = append(view.Instances, &schema.InstanceView{
				Addr: string(inst.Addr), Block: string(addr), Kind: b.Kind, Type: typ, Name: inst.Name,
				Config: inst.Config, Failed: failed,
				Origin: func(path cty.Path) (string, string, bool) { return loc.origin(b, path) },
			})
			seen[string(inst.Addr)] = viewed{block: b, key: inst.Key, failed: failed}
		}
	}
	sort.Slice(view.Instances, func(i, j int) bool { return view.Instances[i].Addr < view.Instances[j].Addr })
	return view, seen
}

// findingGroup is one diagnostic: identical findings of several instances of one block (they
// share their source) are reported once, naming the instances.
type findingGroup struct {
	diag      *hcl.Diagnostic
	instances []string
}

// findingDiagnostics turns findings into diagnostics in the order the rules reported them.
// Findings about failed or unknown instances are dropped: their blocks' own errors come first.
func (e *Evaluated) findingDiagnostics(findings []schema.Finding, instances map[string]viewed, loc *locator) hcl.Diagnostics {
	type key struct {
		severity        schema.Severity
		summary, detail string
		subject         hcl.Range
		block           Address
	}
	var groups []*findingGroup
	index := map[key]*findingGroup{}
	for _, f := range findings {
		inst, ok := instances[f.Instance]
		if !ok || inst.failed {
			continue
		}
		subject := inst.block.DeclRange
		if inst.block.Schema != nil && inst.block.Config != nil {
			if r := loc.rangeAt(inst.block.Config, &inst.block.Schema.Body, f.Path); r != nil {
				subject = *r
			}
		}
		k := key{severity: f.Severity, summary: f.Summary, detail: f.Detail, subject: subject, block: inst.block.Addr}
		g := index[k]
		if g == nil {
			severity := hcl.DiagError
			if f.Severity == schema.SeverityWarning {
				severity = hcl.DiagWarning
			}
			g = &findingGroup{diag: &hcl.Diagnostic{Severity: severity, Summary: f.Summary, Detail: f.Detail, Subject: subject.Ptr()}}
			index[k] = g
			groups = append(groups, g)
		}
		if inst.key != cty.NilVal {
			g.instances = append(g.instances, f.Instance)
		}
	}
	diags := make(hcl.Diagnostics, 0, len(groups))
	for _, g := range groups {
		if len(g.instances) > 0 {
			g.diag.Detail = fmt.Sprintf("In %s: %s", instanceList(g.instances), g.diag.Detail)
		}
		diags = append(diags, g.diag)
	}
	return diags
}

// instanceList names instances for a diagnostic: all of up to instancesShown, else the first
// ones and how many more.
func instanceList(addrs []string) string {
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	switch {
	case len(addrs) == 1:
		return addrs[0]
	case len(addrs) <= instancesShown:
		return strings.Join(addrs[:len(addrs)-1], ", ") + " and " + addrs[len(addrs)-1]
	default:
		return fmt.Sprintf("%s and %d more", strings.Join(addrs[:instancesShown], ", "), len(addrs)-instancesShown)
	}
}

// rangeAt is the narrowest range of what is written at path in body: the attribute's expression
// (or the element of a list or object constructor it holds), a block's label, or else the
// nearest enclosing nested block; nil when nothing along the path is written.
func (l *locator) rangeAt(body hcl.Body, sb *schema.Body, path cty.Path) *hcl.Range {
	expr, rest, enclosing := l.locate(body, sb, path)
	if expr != nil {
		r := narrow(expr, rest)
		return &r
	}
	return enclosing
}

// locate finds the expression of the attribute at path within body, with the steps that lead
// further into its value; when the attribute is not written, it returns the range of the
// nearest nested block (or label) on the path instead.
func (l *locator) locate(body hcl.Body, sb *schema.Body, path cty.Path) (hcl.Expression, cty.Path, *hcl.Range) {
	if len(path) == 0 || sb == nil || body == nil {
		return nil, nil, nil
	}
	step, ok := path[0].(cty.GetAttrStep)
	if !ok {
		return nil, nil, nil
	}
	content, _, _ := body.PartialContent(l.schema(sb))
	if content == nil {
		return nil, nil, nil
	}
	if sb.Attribute(step.Name) != nil {
		if attr, ok := content.Attributes[step.Name]; ok {
			return attr.Expr, path[1:], nil
		}
		return nil, nil, nil
	}
	nested := sb.Block(step.Name)
	if nested == nil {
		return nil, nil, nil
	}
	var blocks []*hcl.Block
	for _, blk := range content.Blocks {
		if blk.Type == step.Name {
			blocks = append(blocks, blk)
		}
	}
	rest := path[1:]
	i := 0
	if nested.Nesting == schema.NestingList {
		if len(rest) == 0 {
			return nil, nil, nil
		}
		n, ok := index(rest[0])
		if !ok {
			return nil, nil, nil
		}
		i, rest = n, rest[1:]
	}
	if i < 0 || i >= len(blocks) {
		return nil, nil, nil
	}
	blk := blocks[i]
	def := blk.DefRange
	if len(rest) == 0 {
		return nil, nil, &def
	}
	if attr, ok := rest[0].(cty.GetAttrStep); ok {
		for j, label := range nested.Labels {
			if label == attr.Name && j < len(blk.LabelRanges) {
				r := blk.LabelRanges[j]
				return nil, nil, &r
			}
		}
	}
	expr, more, enclosing := l.locate(blk.Body, &nested.Body, rest)
	if expr == nil && enclosing == nil {
		return nil, nil, &def
	}
	return expr, more, enclosing
}

// index reads a whole-number index step.
func index(step cty.PathStep) (int, bool) {
	s, ok := step.(cty.IndexStep)
	if !ok || s.Key.IsNull() || !s.Key.IsKnown() || !s.Key.Type().Equals(cty.Number) {
		return 0, false
	}
	n, acc := s.Key.AsBigFloat().Int64()
	if acc != big.Exact {
		return 0, false
	}
	return int(n), true
}

// narrow follows the remaining steps into list and object constructors written in the source
// (zones = ["a", "b"] and zones[1]), as far as the expression is written that way.
func narrow(expr hcl.Expression, rest cty.Path) hcl.Range {
	for _, step := range rest {
		switch s := step.(type) {
		case cty.IndexStep:
			tuple, ok := expr.(*hclsyntax.TupleConsExpr)
			i, isIndex := index(s)
			if !ok || !isIndex || i < 0 || i >= len(tuple.Exprs) {
				return expr.Range()
			}
			expr = tuple.Exprs[i]
		case cty.GetAttrStep:
			obj, ok := expr.(*hclsyntax.ObjectConsExpr)
			if !ok {
				return expr.Range()
			}
			found := false
			for _, item := range obj.Items {
				if objectKey(item.KeyExpr) == s.Name {
					expr, found = item.ValueExpr, true
					break
				}
			}
			if !found {
				return expr.Range()
			}
		}
	}
	return expr.Range()
}

// objectKey is the literal key of an object constructor's item, or "".
func objectKey(expr hcl.Expression) string {
	if k, ok := expr.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name
		}
		expr = k.Wrapped
	}
	v, diags := constantValue(expr)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || !v.Type().Equals(cty.String) {
		return ""
	}
	return v.AsString()
}

// origin tells whether the attribute at path of block b is written as a plain reference to
// another block's output (namespace = component.project.dev.namespace), and names the instance
// and the output.
func (l *locator) origin(b *Block, path cty.Path) (string, string, bool) {
	if b.Schema == nil || b.Config == nil {
		return "", "", false
	}
	expr, rest, _ := l.locate(b.Config, &b.Schema.Body, path)
	if expr == nil || len(rest) > 0 {
		return "", "", false
	}
	t, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() {
		return "", "", false
	}
	// A component is named by its type and name, a garden, seed or shoot by its name.
	names := 0
	switch t.RootName() {
	case "component":
		names = 2
	case string(schema.KindGarden), string(schema.KindSeed), string(schema.KindShoot):
		names = 1
	default:
		return "", "", false
	}
	addr := t.RootName()
	steps := t[1:]
	for range names {
		if len(steps) == 0 {
			return "", "", false
		}
		a, ok := steps[0].(hcl.TraverseAttr)
		if !ok {
			return "", "", false
		}
		addr += "." + a.Name
		steps = steps[1:]
	}
	if len(steps) > 0 {
		if idx, ok := steps[0].(hcl.TraverseIndex); ok {
			switch {
			case idx.Key.Type().Equals(cty.String) && idx.Key.IsKnown() && !idx.Key.IsNull():
				addr += address.StringKey(idx.Key.AsString()).String()
			case idx.Key.Type().Equals(cty.Number) && idx.Key.IsKnown() && !idx.Key.IsNull():
				n, acc := idx.Key.AsBigFloat().Int64()
				if acc != big.Exact {
					return "", "", false
				}
				addr += address.IntKey(int(n)).String()
			default:
				return "", "", false
			}
			steps = steps[1:]
		}
	}
	if len(steps) != 1 {
		return "", "", false
	}
	out, ok := steps[0].(hcl.TraverseAttr)
	if !ok {
		return "", "", false
	}
	return addr, out.Name, true
}
