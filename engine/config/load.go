package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/limits"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// File name endings of landscape files: native syntax and HCL's JSON syntax.
const (
	ExtensionHCL  = ".hcl"
	ExtensionJSON = ".hcl.json"
)

var topLevelSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "landscape", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "cluster", LabelNames: []string{"name"}},
		{Type: string(schema.KindGarden), LabelNames: []string{"name"}},
		{Type: string(schema.KindSeed), LabelNames: []string{"name"}},
		{Type: string(schema.KindShoot), LabelNames: []string{"name"}},
		{Type: string(schema.KindComponent), LabelNames: []string{"type", "name"}},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "moved"},
		{Type: "import"},
	},
}

// Parse reads and decodes the landscape in the directory paths reads, against the schemas of
// reg, without evaluating anything: syntax, block structure, meta-arguments, schema conformance
// of literal structure and references. Every problem found is returned; the landscape is nil only
// when no file could be read at all. Each file is read under the directory's policy (a regular
// file of bounded size, inside the directory in confined mode) and its nesting is checked before
// it is parsed.
func Parse(paths *landscapefs.Dir, reg *schema.Registry) (*Landscape, hcl.Diagnostics) {
	dir := paths.Root()
	names, err := landscapeFiles(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unreadable landscape directory",
			Detail:   fmt.Sprintf("The landscape directory %s cannot be read: %s.", dir, err),
		}}
	}
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No landscape files",
			Detail:   fmt.Sprintf("The directory %s holds no *%s or *%s files.", dir, ExtensionHCL, ExtensionJSON),
		}}
	}
	parser := hclparse.NewParser()
	var diags hcl.Diagnostics
	var bodies []hcl.Body
	for _, name := range names {
		path := filepath.Join(dir, name)
		src, err := paths.ReadFile(name)
		if err != nil {
			r := hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}
			d := &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unreadable file",
				Detail:   fmt.Sprintf("The file %s cannot be read: %s.", path, readError(err)),
				Subject:  &r,
			}
			if errors.Is(err, landscapefs.ErrOutside) {
				d.Summary = "Outside the landscape directory"
			}
			diags = append(diags, d)
			continue
		}
		json := strings.HasSuffix(name, ExtensionJSON)
		var d hcl.Diagnostics
		if json {
			d = limits.JSON(src, path, true)
		} else {
			d = limits.HCL(src, path, hcl.InitialPos, false)
		}
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		var f *hcl.File
		if json {
			f, d = parser.ParseJSON(src, path)
		} else {
			f, d = parser.ParseHCL(src, path)
		}
		diags = append(diags, d...)
		if f != nil && !d.HasErrors() {
			bodies = append(bodies, f.Body)
		}
	}
	l := &Landscape{
		Dir:       dir,
		Paths:     paths,
		Files:     parser.Files(),
		Variables: map[string]*Variable{},
		Locals:    map[string]*Local{},
		Clusters:  map[string]*Cluster{},
		Blocks:    map[Address]*Block{},
		Outputs:   map[string]*Output{},
		invalid:   map[Address]bool{},
		evaluable: !diags.HasErrors(),
		rules:     reg.LandscapeRules(),
	}
	// A landscape is untrusted input: its for expressions count what they iterate over
	// (limits.MaxIterations), so that nested loops cannot keep a plan busy for hours.
	for _, body := range bodies {
		if syntax, ok := body.(*hclsyntax.Body); ok {
			limits.BoundForExpressions(syntax)
		}
	}
	d := &decoder{reg: reg, l: l, declared: map[Address]hcl.Range{}}
	for _, body := range bodies {
		diags = append(diags, d.decodeFile(body)...)
	}
	if l.Name == "" && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing landscape block",
			Detail:   `A landscape needs one landscape block naming it, e.g. landscape "production" {}; the name goes into the labels of every object it applies.`,
		})
	}
	diags = append(diags, checkMoves(l)...)
	diags = append(diags, checkImports(l)...)
	diags = append(diags, resolveReferences(l)...)
	return l, diags
}

// landscapeFiles lists the landscape files in dir, sorted, skipping hidden and editor backup
// files.
func landscapeFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") {
			continue
		}
		if strings.HasSuffix(name, ExtensionHCL) || strings.HasSuffix(name, ExtensionJSON) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// readError words an error of reading a file whose path the message names already.
func readError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file or directory")
	}
	return err
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// decoder decodes the top-level blocks of all files into one Landscape.
type decoder struct {
	reg      *schema.Registry
	l        *Landscape
	declared map[Address]hcl.Range
}

func (d *decoder) decodeFile(body hcl.Body) hcl.Diagnostics {
	content, diags := body.Content(topLevelSchema)
	for _, block := range content.Blocks {
		if !d.validName(block, &diags) {
			continue
		}
		var bd hcl.Diagnostics
		var addr Address
		switch block.Type {
		case "landscape":
			bd = d.decodeLandscape(block)
			// The landscape block configures state only; nothing refers to it.
		case "variable":
			bd, addr = d.decodeVariable(block), Address("var."+block.Labels[0])
		case "locals":
			bd = d.decodeLocals(block)
		case "cluster":
			bd, addr = d.decodeCluster(block), Address("cluster."+block.Labels[0])
		case "output":
			bd, addr = d.decodeOutput(block), Address("output."+block.Labels[0])
		case "moved":
			bd = d.decodeMoved(block)
		case "import":
			bd = d.decodeImport(block)
		default:
			var b *Block
			bd, b = d.decodeBlock(block)
			if b != nil {
				addr = b.Addr
			}
		}
		if bd.HasErrors() && addr != "" {
			d.l.invalid[addr] = true
		}
		diags = append(diags, bd...)
	}
	return diags
}

// validName checks that every label is an identifier, since labels become reference names.
func (d *decoder) validName(block *hcl.Block, diags *hcl.Diagnostics) bool {
	for i, label := range block.Labels {
		if !hclsyntax.ValidIdentifier(label) {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid block label",
				Detail: fmt.Sprintf("The %s of a %s block must start with a letter or underscore and contain only letters, digits, underscores and dashes, because it is used in references; %q is not valid.",
					topLevelLabelName(block.Type, i), block.Type, label),
				Subject: block.LabelRanges[i].Ptr(),
			})
			return false
		}
	}
	return true
}

func topLevelLabelName(blockType string, i int) string {
	for _, h := range topLevelSchema.Blocks {
		if h.Type == blockType && i < len(h.LabelNames) {
			return h.LabelNames[i]
		}
	}
	return "label"
}

// declare records an address and reports a duplicate declaration.
func (d *decoder) declare(addr Address, what string, r hcl.Range) hcl.Diagnostics {
	if prev, ok := d.declared[addr]; ok {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Duplicate " + what,
			Detail:   fmt.Sprintf("%s was already declared at %s. Names must be unique within a landscape.", addr, prev),
			Subject:  r.Ptr(),
		}}
	}
	d.declared[addr] = r
	return nil
}

var landscapeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "strict_conflicts"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "state"}},
}

var stateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "backend", Required: true},
		{Name: "path"},
		{Name: "cluster"},
		{Name: "namespace"},
	},
}

// State backends.
const (
	BackendLocal      = "local"
	BackendKubernetes = "kubernetes"
)

func (d *decoder) decodeLandscape(block *hcl.Block) hcl.Diagnostics {
	diags := d.declare("landscape", "landscape block", block.DefRange)
	if diags.HasErrors() {
		return diags
	}
	l := d.l
	l.Name, l.DeclRange = block.Labels[0], block.DefRange
	content, cd := block.Body.Content(landscapeSchema)
	diags = append(diags, cd...)
	if attr, ok := content.Attributes["description"]; ok {
		diags = append(diags, constString(attr, &l.Description)...)
	}
	if attr, ok := content.Attributes["strict_conflicts"]; ok {
		diags = append(diags, constBool(attr, &l.StrictConflicts)...)
	}
	if len(content.Blocks) > 0 {
		diags = append(diags, d.decodeState(content.Blocks[0])...)
		diags = append(diags, extraBlocks(content.Blocks, "Duplicate state block", "A landscape has one state backend.")...)
	}
	return diags
}

// extraBlocks reports every block after the first of a nested block type a body holds at most
// once (the landscape's state, a block's lifecycle), in the words of summary and detail; the
// caller decodes the first.
func extraBlocks(blocks hcl.Blocks, summary, detail string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, extra := range blocks[min(1, len(blocks)):] {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: extra.DefRange.Ptr()})
	}
	return diags
}

func (d *decoder) decodeState(block *hcl.Block) hcl.Diagnostics {
	st := &StateConfig{DeclRange: block.DefRange}
	content, diags := block.Body.Content(stateSchema)
	if attr, ok := content.Attributes["backend"]; ok {
		diags = append(diags, constString(attr, &st.Backend)...)
		if st.Backend != "" && st.Backend != BackendLocal && st.Backend != BackendKubernetes {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Unsupported state backend",
				Detail:  fmt.Sprintf("The state backend %q is not supported; use %q or %q.%s", st.Backend, BackendLocal, BackendKubernetes, diag.DidYouMean(st.Backend, []string{BackendLocal, BackendKubernetes})),
				Subject: attr.Expr.Range().Ptr(),
			})
		}
	}
	if attr, ok := content.Attributes["path"]; ok {
		diags = append(diags, constString(attr, &st.Path)...)
		if st.Path != "" {
			// The state file is written: in confined mode it stays in the landscape directory.
			if _, err := d.l.Paths.Path(st.Path); err != nil {
				diags = append(diags, confinementDiagnostic(err, attr.Expr.Range().Ptr()))
			}
		}
	}
	if attr, ok := content.Attributes["namespace"]; ok {
		diags = append(diags, constString(attr, &st.Namespace)...)
	}
	if attr, ok := content.Attributes["cluster"]; ok {
		trav, td := hcl.AbsTraversalForExpr(attr.Expr)
		if td.HasErrors() || len(trav) != 2 || trav.RootName() != "cluster" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid state cluster",
				Detail: "The state cluster must be a reference to a cluster block, e.g. cluster.runtime.", Subject: attr.Expr.Range().Ptr(),
			})
		} else if step, ok := trav[1].(hcl.TraverseAttr); ok {
			st.Cluster, st.ClusterRange = step.Name, attr.Expr.Range()
		}
	}
	switch st.Backend {
	case BackendKubernetes:
		if st.Cluster == "" && !diags.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Missing state cluster",
				Detail: "The kubernetes state backend stores state as Secrets in a cluster; name it with cluster = cluster.<name>.", Subject: block.DefRange.Ptr(),
			})
		}
		if st.Namespace == "" {
			st.Namespace = "garden"
		}
	case BackendLocal:
		if st.Path == "" {
			st.Path = "gardener.state"
		}
	}
	d.l.State = st
	return diags
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

func (d *decoder) decodeVariable(block *hcl.Block) hcl.Diagnostics {
	v := &Variable{Name: block.Labels[0], Type: cty.DynamicPseudoType, DeclRange: block.DefRange}
	diags := d.declare(Address("var."+v.Name), "variable", block.DefRange)
	if diags.HasErrors() {
		return diags
	}
	content, cd := block.Body.Content(variableSchema)
	diags = append(diags, cd...)
	if attr, ok := content.Attributes["type"]; ok {
		ty, td := typeexpr.TypeConstraint(attr.Expr)
		diags = append(diags, td...)
		if !td.HasErrors() {
			v.Type = ty
		}
	}
	if attr, ok := content.Attributes["description"]; ok {
		diags = append(diags, constString(attr, &v.Description)...)
	}
	if attr, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, constBool(attr, &v.Sensitive)...)
	}
	if attr, ok := content.Attributes["default"]; ok {
		val, vd := constantValue(attr.Expr)
		diags = append(diags, vd...)
		if !vd.HasErrors() {
			converted, err := convert.Convert(val, v.Type)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError, Summary: "Invalid default value for variable",
					Detail:  fmt.Sprintf("This default value is not compatible with the variable's type constraint: %s.", err),
					Subject: attr.Expr.Range().Ptr(),
				})
			} else {
				v.Default = converted
			}
		}
	}
	for _, vb := range content.Blocks {
		vc, vd := vb.Body.Content(validationSchema)
		diags = append(diags, vd...)
		cond, okCond := vc.Attributes["condition"]
		msg, okMsg := vc.Attributes["error_message"]
		if !okCond || !okMsg {
			continue
		}
		rule := &Validation{Condition: cond.Expr, ErrorMessage: msg.Expr, DeclRange: vb.DefRange}
		for _, t := range cond.Expr.Variables() {
			if t.RootName() != "var" || len(t) < 2 || traverseName(t[1]) != v.Name {
				rule.invalid = true
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError, Summary: "Invalid reference in variable validation",
					Detail:  fmt.Sprintf("The condition of a validation rule may refer only to the variable it validates, var.%s.", v.Name),
					Subject: t.SourceRange().Ptr(),
				})
			}
		}
		v.Validations = append(v.Validations, rule)
	}
	d.l.Variables[v.Name] = v
	return diags
}

func (d *decoder) decodeLocals(block *hcl.Block) hcl.Diagnostics {
	attrs, diags := block.Body.JustAttributes()
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		attr := attrs[name]
		if dd := d.declare(Address("local."+name), "local value", attr.NameRange); dd.HasErrors() {
			diags = append(diags, dd...)
			continue
		}
		d.l.Locals[name] = &Local{Name: name, Expr: attr.Expr, DeclRange: attr.NameRange}
	}
	return diags
}

// ClusterSchema is the content of a cluster block.
var ClusterSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "kubeconfig"}, {Name: "context"}, {Name: "in_cluster"}},
}

func (d *decoder) decodeCluster(block *hcl.Block) hcl.Diagnostics {
	name := block.Labels[0]
	diags := d.declare(Address("cluster."+name), "cluster", block.DefRange)
	if diags.HasErrors() {
		return diags
	}
	_, cd := block.Body.Content(ClusterSchema)
	diags = append(diags, cd...)
	d.l.Clusters[name] = &Cluster{Name: name, Config: block.Body, DeclRange: block.DefRange}
	return diags
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}, {Name: "description"}, {Name: "sensitive"}},
}

func (d *decoder) decodeOutput(block *hcl.Block) hcl.Diagnostics {
	o := &Output{Name: block.Labels[0], DeclRange: block.DefRange}
	diags := d.declare(Address("output."+o.Name), "output", block.DefRange)
	if diags.HasErrors() {
		return diags
	}
	content, cd := block.Body.Content(outputSchema)
	diags = append(diags, cd...)
	if attr, ok := content.Attributes["value"]; ok {
		o.Expr = attr.Expr
	}
	if attr, ok := content.Attributes["description"]; ok {
		diags = append(diags, constString(attr, &o.Description)...)
	}
	if attr, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, constBool(attr, &o.Sensitive)...)
	}
	if o.Expr != nil {
		d.l.Outputs[o.Name] = o
	}
	return diags
}

// metaSchema holds the meta-arguments of garden, seed, shoot and component blocks.
var metaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "depends_on"}, {Name: "for_each"}, {Name: "count"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "lifecycle"}},
}

var lifecycleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "prevent_destroy"}, {Name: "ignore_changes"}, {Name: "ready_timeout"}},
}

// decodeBlock decodes a garden, seed, shoot or component block. A block whose type has no schema
// is still registered (without a schema), so references to it do not cascade into more errors.
func (d *decoder) decodeBlock(block *hcl.Block) (hcl.Diagnostics, *Block) {
	kind := schema.Kind(block.Type)
	b := &Block{Kind: kind, Type: block.Type, Name: block.Labels[0], DeclRange: block.DefRange}
	var diags hcl.Diagnostics
	if kind == schema.KindComponent {
		b.Type, b.Name, b.TypeRange = block.Labels[0], block.Labels[1], block.LabelRanges[0]
	}
	b.Addr = blockAddress(kind, b.Type, b.Name)
	if dd := d.declare(b.Addr, block.Type+" block", block.DefRange); dd.HasErrors() {
		return dd, nil
	}
	b.Schema = d.reg.Lookup(kind, b.Type)
	if b.Schema == nil {
		d.l.Blocks[b.Addr] = b
		if kind == schema.KindComponent {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError, Summary: "Unsupported component type",
				Detail:  fmt.Sprintf("There is no component type %q.%s Run `gardener components` for the catalog.", b.Type, diag.DidYouMean(b.Type, d.reg.Types(kind))),
				Subject: b.TypeRange.Ptr(),
			}}, b
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Unsupported block type",
			Detail: fmt.Sprintf("This build of gardener has no schema for %s blocks.", block.Type), Subject: block.DefRange.Ptr(),
		}}, b
	}

	meta, remain, md := block.Body.PartialContent(metaSchema)
	diags = append(diags, md...)
	b.Config = remain
	if attr, ok := meta.Attributes["for_each"]; ok {
		b.ForEach = attr.Expr
	}
	if attr, ok := meta.Attributes["count"]; ok {
		b.Count = attr.Expr
		if b.ForEach != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid combination of count and for_each",
				Detail: "A block may use count or for_each, not both.", Subject: attr.NameRange.Ptr(),
			})
		}
	}
	if attr, ok := meta.Attributes["depends_on"]; ok {
		travs, td := traversalList(attr, hcl.AbsTraversalForExpr, "Invalid depends_on reference",
			"depends_on lists references to other blocks, e.g. [garden.local, component.helm_release.cert_manager].")
		diags = append(diags, td...)
		b.DependsOn = append(b.DependsOn, travs...)
	}
	if len(meta.Blocks) > 0 {
		diags = append(diags, decodeLifecycle(meta.Blocks[0], b)...)
		diags = append(diags, extraBlocks(meta.Blocks, "Duplicate lifecycle block", "A block has at most one lifecycle block.")...)
	}
	d.l.Blocks[b.Addr] = b
	return diags, b
}

func decodeLifecycle(block *hcl.Block, b *Block) hcl.Diagnostics {
	content, diags := block.Body.Content(lifecycleSchema)
	if attr, ok := content.Attributes["prevent_destroy"]; ok {
		diags = append(diags, constBool(attr, &b.Lifecycle.PreventDestroy)...)
	}
	if attr, ok := content.Attributes["ready_timeout"]; ok {
		var text string
		if d := constString(attr, &text); d.HasErrors() {
			diags = append(diags, d...)
		} else if dur, err := time.ParseDuration(text); err != nil || dur <= 0 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid ready_timeout",
				Detail:  fmt.Sprintf("ready_timeout must be a positive duration such as \"90s\" or \"15m\", not %q.", text),
				Subject: attr.Expr.Range().Ptr(),
			})
		} else {
			b.Lifecycle.ReadyTimeout = dur
		}
	}
	if attr, ok := content.Attributes["ignore_changes"]; ok {
		diags = append(diags, ignoreChangesRefused(attr))
	}
	return diags
}

// ignoreChangesRefused is the error of a lifecycle's ignore_changes. Terraform's ignore_changes
// keeps the listed attributes at the values of the last apply, which its state records; a
// gardener state records the objects a block applied and a hash of its configuration, not the
// configuration's values, so there is nothing to hold the attributes to. Accepting the argument
// would apply every change of them anyway, so it is refused rather than ignored in silence.
func ignoreChangesRefused(attr *hcl.Attribute) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: "Unsupported lifecycle argument",
		Detail: "gardener does not support ignore_changes: its state does not record the values a block was last applied with, " +
			"so a change of the listed attributes would still be applied. Remove the argument and keep the value in the " +
			"landscape (a variable or a local) where it must not change. Changes made in the cluster are a separate matter: " +
			"people's edits are drift that apply takes back, and fields a controller owns stay a conflict (docs/cli.md, Drift and conflicts).",
		Subject: attr.NameRange.Ptr(), Context: attr.Range.Ptr(),
	}
}

// traversalList decodes an attribute that lists traversals, such as depends_on (references to
// blocks, parsed by hcl.AbsTraversalForExpr). Each element is parsed on its own, so that a malformed one is
// reported at its own range, in the words of summary and detail rather than the parser's, and
// the others still count.
func traversalList(attr *hcl.Attribute, parse func(hcl.Expression) (hcl.Traversal, hcl.Diagnostics), summary, detail string) ([]hcl.Traversal, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(attr.Expr)
	var travs []hcl.Traversal
	for _, e := range exprs {
		trav, td := parse(e)
		if td.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: e.Range().Ptr()})
			continue
		}
		travs = append(travs, trav)
	}
	return travs, diags
}

// constant evaluates an attribute that must be a constant of type ty (no references: these
// arguments configure how the landscape is read); what names the type in the message.
func constant(attr *hcl.Attribute, ty cty.Type, what string) (cty.Value, hcl.Diagnostics) {
	val, diags := constantValue(attr.Expr)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	val, err := convert.Convert(val, ty)
	if err != nil || val.IsNull() {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid value",
			Detail: fmt.Sprintf("The %s argument must be %s.", attr.Name, what), Subject: attr.Expr.Range().Ptr(),
		}}
	}
	return val, nil
}

// constString evaluates an attribute that must be a constant string.
func constString(attr *hcl.Attribute, out *string) hcl.Diagnostics {
	val, diags := constant(attr, cty.String, "a string")
	if !diags.HasErrors() {
		*out = val.AsString()
	}
	return diags
}

// constBool evaluates an attribute that must be a constant boolean.
func constBool(attr *hcl.Attribute, out *bool) hcl.Diagnostics {
	val, diags := constant(attr, cty.Bool, "true or false")
	if !diags.HasErrors() {
		*out = val.True()
	}
	return diags
}

func traverseName(step hcl.Traverser) string {
	if a, ok := step.(hcl.TraverseAttr); ok {
		return a.Name
	}
	return ""
}

// constantValue evaluates a constant (no variables, no function calls): only the function that
// counts the iterations of its for expressions (limits.BoundForExpressions) is offered, and a
// call of any other is refused as HCL refuses calls where no functions are.
func constantValue(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if syntax, ok := expr.(hclsyntax.Expression); ok {
		var diags hcl.Diagnostics
		_ = hclsyntax.VisitAll(syntax, func(n hclsyntax.Node) hcl.Diagnostics {
			if call, ok := n.(*hclsyntax.FunctionCallExpr); ok && call.Name != limits.IterationFunction {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError, Summary: "Function calls not allowed",
					Detail: "Functions may not be called here.", Subject: call.Range().Ptr(), Expression: call,
				})
			}
			return nil
		})
		if diags.HasErrors() {
			return cty.DynamicVal, diags
		}
	}
	return expr.Value(&hcl.EvalContext{Functions: (&limits.Iterations{}).Functions()})
}
