package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
)

func hcldecSchema(s *schema.Schema) *hcl.BodySchema { return hcldec.ImpliedSchema(s.Body.Spec()) }

// structuralCheck reports unknown and missing arguments and blocks at every nesting level
// without evaluating anything; an argument or block the schema lists as removed is reported
// with what replaced it.
func structuralCheck(body hcl.Body, b *schema.Body) hcl.Diagnostics {
	bs := hcldec.ImpliedSchema(b.Spec())
	for _, r := range b.Removed {
		if r.Block {
			bs.Blocks = append(bs.Blocks, hcl.BlockHeaderSchema{Type: r.Name})
		} else {
			bs.Attributes = append(bs.Attributes, hcl.AttributeSchema{Name: r.Name})
		}
	}
	content, diags := body.Content(bs)
	if content == nil {
		return diags
	}
	for _, r := range b.Removed {
		if a, ok := content.Attributes[r.Name]; ok && !r.Block {
			diags = append(diags, removedDiag("argument", r, a.NameRange))
		}
	}
	for _, blk := range content.Blocks {
		if nested := b.Block(blk.Type); nested != nil {
			diags = append(diags, structuralCheck(blk.Body, &nested.Body)...)
			continue
		}
		for _, r := range b.Removed {
			if r.Block && r.Name == blk.Type {
				diags = append(diags, removedDiag("block", r, blk.TypeRange))
			}
		}
	}
	return diags
}

// removedDiag reports an argument or block a schema no longer accepts, saying what replaced it.
func removedDiag(what string, r schema.Removed, at hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: fmt.Sprintf("Removed %s %q", what, r.Name),
		Detail: r.Detail, Subject: at.Ptr(),
	}
}

// referenceExample shows each reference form.
var referenceExample = map[string]string{
	"var": "var.kubernetes_version", "local": "local.domain", "cluster": "cluster.runtime",
	"garden": "garden.local.name", "seed": "seed.local.name", "shoot": "shoot.dev.technical_id",
	"component": "component.helm_release.cert_manager", "each": "each.key", "count": "count.index",
}

// referenceRoots are the names a reference may start with.
var referenceRoots = []string{"var", "local", "cluster", "garden", "seed", "shoot", "component", "each", "count"}

// resolveReferences checks every reference of every object and records the dependency edges.
func resolveReferences(l *Landscape) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// report records an object's problems and marks it invalid when there are errors.
	report := func(from Address, d hcl.Diagnostics) {
		diags = append(diags, d...)
		if d.HasErrors() {
			l.invalid[from] = true
		}
	}
	add := func(from Address, travs []hcl.Traversal, block *Block) {
		for _, t := range travs {
			to, d := l.resolve(t, block)
			report(from, d)
			if to != "" {
				l.References = append(l.References, Reference{From: from, To: to, Range: t.SourceRange()})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(l.Locals)) {
		add(Address("local."+name), l.Locals[name].Expr.Variables(), nil)
	}
	for _, name := range slices.Sorted(maps.Keys(l.Clusters)) {
		attrs, _ := l.Clusters[name].Config.JustAttributes()
		for _, an := range slices.Sorted(maps.Keys(attrs)) {
			add(Address("cluster."+name), attrs[an].Expr.Variables(), nil)
		}
	}
	for _, addr := range l.BlockAddresses() {
		b := l.Blocks[addr]
		if b.Schema == nil {
			continue // its unsupported type was reported
		}
		report(addr, structuralCheck(b.Config, &b.Schema.Body))
		var travs []hcl.Traversal
		if b.ForEach != nil {
			travs = append(travs, b.ForEach.Variables()...)
		}
		if b.Count != nil {
			travs = append(travs, b.Count.Variables()...)
		}
		for _, t := range b.DependsOn {
			if !slices.Contains([]string{"garden", "seed", "shoot", "component"}, t.RootName()) {
				report(addr, hcl.Diagnostics{{
					Severity: hcl.DiagError, Summary: "Invalid depends_on reference",
					Detail:  "depends_on lists garden, seed, shoot and component blocks; other references already order what refers to them.",
					Subject: t.SourceRange().Ptr(),
				}})
			}
		}
		travs = append(travs, b.DependsOn...)
		travs = append(travs, hcldec.Variables(b.Config, b.Schema.Body.Spec())...)
		add(addr, travs, b)
		report(addr, l.checkReferenceAttributes(b))
	}
	for _, name := range slices.Sorted(maps.Keys(l.Outputs)) {
		add(Address("output."+name), l.Outputs[name].Expr.Variables(), nil)
	}
	if l.State != nil && l.State.Cluster != "" {
		if _, ok := l.Clusters[l.State.Cluster]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Reference to undeclared cluster",
				Detail:  fmt.Sprintf("The state backend names cluster %q, which is not declared.%s", l.State.Cluster, diag.DidYouMean(l.State.Cluster, slices.Sorted(maps.Keys(l.Clusters)))),
				Subject: l.State.ClusterRange.Ptr(),
			})
		}
	}
	cycles := l.checkCycles()
	if cycles.HasErrors() {
		l.evaluable = false
	}
	return append(diags, cycles...)
}

// resolve maps a traversal to the address it refers to, or reports why it cannot. References
// to each and count resolve to "" (no edge) when allowed.
func (l *Landscape) resolve(t hcl.Traversal, from *Block) (Address, hcl.Diagnostics) {
	r := t.SourceRange()
	fail := func(summary, detail string) (Address, hcl.Diagnostics) {
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: r.Ptr()}}
	}
	root := t.RootName()
	name := ""
	if len(t) > 1 {
		name = traverseName(t[1])
	}
	if name == "" && slices.Contains(referenceRoots, root) {
		return fail("Invalid reference", fmt.Sprintf("A reference to %s must name what it refers to, e.g. %s.", root, referenceExample[root]))
	}
	switch root {
	case "var":
		if _, ok := l.Variables[name]; !ok {
			return fail("Reference to undeclared input variable", fmt.Sprintf("An input variable named %q is not declared.%s", name, diag.DidYouMean(name, slices.Sorted(maps.Keys(l.Variables)))))
		}
		return Address("var." + name), nil
	case "local":
		if _, ok := l.Locals[name]; !ok {
			return fail("Reference to undeclared local value", fmt.Sprintf("A local value named %q is not declared.%s", name, diag.DidYouMean(name, slices.Sorted(maps.Keys(l.Locals)))))
		}
		return Address("local." + name), nil
	case "cluster":
		if _, ok := l.Clusters[name]; !ok {
			return fail("Reference to undeclared cluster", fmt.Sprintf("A cluster named %q is not declared.%s", name, diag.DidYouMean(name, slices.Sorted(maps.Keys(l.Clusters)))))
		}
		return Address("cluster." + name), nil
	case "garden", "seed", "shoot":
		addr := Address(root + "." + name)
		target, ok := l.Blocks[addr]
		if !ok {
			return fail("Reference to undeclared "+root, fmt.Sprintf("A %s named %q is not declared.%s", root, name, diag.DidYouMean(name, l.blockNames(schema.Kind(root), ""))))
		}
		return addr, checkOutput(target, t[2:], r)
	case "component":
		typ := name
		cname := ""
		if len(t) > 2 {
			cname = traverseName(t[2])
		}
		if typ == "" || cname == "" {
			return fail("Invalid component reference", "A component is referenced as component.<type>.<name>, e.g. component.helm_release.cert_manager.")
		}
		addr := blockAddress(schema.KindComponent, typ, cname)
		target, ok := l.Blocks[addr]
		if !ok {
			return fail("Reference to undeclared component", fmt.Sprintf("A component %q of type %q is not declared.%s", cname, typ, diag.DidYouMean(cname, l.blockNames(schema.KindComponent, typ))))
		}
		return addr, checkOutput(target, t[3:], r)
	case "each":
		if from == nil || from.ForEach == nil {
			return fail("Reference to \"each\" in context without for_each", "each.key and each.value are available only in blocks that set for_each.")
		}
		if name != "key" && name != "value" {
			return fail("Invalid each attribute", "each has only the attributes key and value.")
		}
		return "", nil
	case "count":
		if from == nil || from.Count == nil {
			return fail("Reference to \"count\" in non-counted context", "count.index is available only in blocks that set count.")
		}
		if name != "index" {
			return fail("Invalid count attribute", "count has only the attribute index.")
		}
		return "", nil
	case "path":
		return fail("Unknown reference", "There is no object called \"path\": file() and templatefile() resolve relative paths against the landscape directory, so Terraform's path.module is not needed.")
	default:
		return fail("Unknown reference", fmt.Sprintf("There is no object called %q. References start with %s.%s", root, strings.Join(referenceRoots, ", "), diag.DidYouMean(root, referenceRoots)))
	}
}

// checkOutput checks that the first attribute step after a block reference (skipping an
// instance key like ["a"] or [0]) names an output of the block.
func checkOutput(target *Block, rest hcl.Traversal, r hcl.Range) hcl.Diagnostics {
	if target.Schema == nil {
		return nil // its unsupported type was reported
	}
	for _, step := range rest {
		attr, ok := step.(hcl.TraverseAttr)
		if !ok {
			continue
		}
		for _, o := range target.Schema.Outputs {
			if o.Name == attr.Name {
				return nil
			}
		}
		names := make([]string, 0, len(target.Schema.Outputs))
		for _, o := range target.Schema.Outputs {
			names = append(names, o.Name)
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Unsupported attribute",
			Detail:  fmt.Sprintf("%s has no output named %q; its outputs are %s.%s", target.Addr, attr.Name, strings.Join(names, ", "), diag.DidYouMean(attr.Name, names)),
			Subject: attr.SrcRange.Ptr(),
		}}
	}
	return nil
}

// isReferenceTo reports whether t refers to a whole block of kind: `seed.a` or `seed.a["x"]`
// (`component.T.N` for components). A cluster may also come from a block output that is an
// object, such as garden.x.virtual_cluster. each.value is accepted in blocks with for_each.
func (l *Landscape) isReferenceTo(t hcl.Traversal, kind string) bool {
	// for_each over blocks: `cluster = each.value`; the for_each expression carries the edges.
	if t.RootName() == "each" && len(t) == 2 && traverseName(t[1]) == "value" {
		return true
	}
	steps := 2
	if kind == schema.RefComponent {
		steps = 3
	}
	if t.RootName() == kind {
		if len(t) == steps {
			return true
		}
		_, indexed := t[len(t)-1].(hcl.TraverseIndex)
		return kind != schema.RefCluster && len(t) == steps+1 && indexed
	}
	if kind != schema.RefCluster {
		return false
	}
	last, ok := t[len(t)-1].(hcl.TraverseAttr)
	if !ok {
		return false
	}
	for _, b := range l.Blocks {
		if b.Schema == nil {
			continue
		}
		composite := b.Kind != schema.KindComponent && t.RootName() == string(b.Kind) && len(t) >= 3 && traverseName(t[1]) == b.Name
		component := b.Kind == schema.KindComponent && t.RootName() == "component" && len(t) >= 4 &&
			traverseName(t[1]) == b.Type && traverseName(t[2]) == b.Name
		if composite || component {
			for _, o := range b.Schema.Outputs {
				if o.Name == last.Name && o.Type.IsObjectType() {
					return true
				}
			}
		}
	}
	return false
}

// jsonInterpolatedTraversal accepts the JSON syntax of a reference: a string that is exactly one
// interpolation, "${cluster.runtime}", which HCL evaluates to the referenced value itself.
func (l *Landscape) jsonInterpolatedTraversal(expr hcl.Expression) (hcl.Traversal, hcl.Diagnostics) {
	notOne := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not a single interpolation"}}
	r := expr.Range()
	file := l.Files[r.Filename]
	vars := expr.Variables()
	if file == nil || !strings.HasSuffix(r.Filename, ExtensionJSON) || len(vars) != 1 || r.End.Byte > len(file.Bytes) {
		return nil, notOne
	}
	src := strings.TrimSpace(string(file.Bytes[r.Start.Byte:r.End.Byte]))
	inner, ok := strings.CutPrefix(src, `"${`)
	if inner, ok = strings.CutSuffix(inner, `}"`); !ok || strings.TrimSpace(inner) != string(hclTraversalText(file.Bytes, vars[0])) {
		return nil, notOne
	}
	return vars[0], nil
}

// hclTraversalText is the source text of a traversal.
func hclTraversalText(src []byte, t hcl.Traversal) []byte {
	r := t.SourceRange()
	if r.End.Byte > len(src) || r.Start.Byte > r.End.Byte {
		return nil
	}
	return src[r.Start.Byte:r.End.Byte]
}

// checkReferenceAttributes checks that attributes declared as references (cluster =
// cluster.runtime) are written as references to a block of the right kind.
func (l *Landscape) checkReferenceAttributes(b *Block) hcl.Diagnostics {
	content, _ := b.Config.Content(hcldecSchema(b.Schema))
	if content == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, a := range b.Schema.Body.Attributes {
		if a.References == "" {
			continue
		}
		attr, ok := content.Attributes[a.Name]
		if !ok {
			continue
		}
		t, td := hcl.AbsTraversalForExpr(attr.Expr)
		if td.HasErrors() {
			t, td = l.jsonInterpolatedTraversal(attr.Expr)
		}
		if td.HasErrors() || !l.isReferenceTo(t, a.References) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid reference",
				Detail:  fmt.Sprintf("The %s argument must be a reference to a %s block, e.g. %s = %s.<name>.", a.Name, a.References, a.Name, a.References),
				Subject: attr.Expr.Range().Ptr(),
			})
		}
	}
	return diags
}

// checkCycles reports every reference cycle once, naming all its members and where the
// references that close it are.
func (l *Landscape) checkCycles() hcl.Diagnostics {
	g := graph.New(graph.StringHash, graph.Directed())
	edges := map[[2]string]hcl.Range{}
	for _, ref := range l.References {
		from, to := string(ref.From), string(ref.To)
		_ = g.AddVertex(from)
		_ = g.AddVertex(to)
		key := [2]string{from, to}
		if _, ok := edges[key]; !ok {
			edges[key] = ref.Range
			_ = g.AddEdge(from, to)
		}
	}
	sccs, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		return nil
	}
	var diags hcl.Diagnostics
	var cycles [][]string
	for _, scc := range sccs {
		if len(scc) > 1 {
			sort.Strings(scc)
			cycles = append(cycles, scc)
		} else if _, self := edges[[2]string{scc[0], scc[0]}]; self {
			cycles = append(cycles, scc)
		}
	}
	sort.Slice(cycles, func(i, j int) bool { return cycles[i][0] < cycles[j][0] })
	for _, members := range cycles {
		in := map[string]bool{}
		for _, m := range members {
			in[m] = true
		}
		var closing []string
		var first *hcl.Range
		for _, ref := range l.References {
			if in[string(ref.From)] && in[string(ref.To)] {
				r := ref.Range
				if first == nil {
					first = &r
				}
				closing = append(closing, fmt.Sprintf("%s refers to %s at %s", ref.From, ref.To, r))
			}
		}
		closing = dedupeStrings(closing)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference cycle",
			Detail: fmt.Sprintf("These objects refer to each other in a cycle, so none can be planned first: %s.\n%s",
				strings.Join(members, ", "), strings.Join(closing, "\n")),
			Subject: first,
		})
	}
	return diags
}

// BlockAddresses lists the block addresses sorted.
func (l *Landscape) BlockAddresses() []Address {
	addrs := make([]Address, 0, len(l.Blocks))
	for a := range l.Blocks {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	return addrs
}

// blockNames lists the names of blocks of a kind (and component type), sorted.
func (l *Landscape) blockNames(kind schema.Kind, typ string) []string {
	var names []string
	for _, b := range l.Blocks {
		if b.Kind == kind && (typ == "" || b.Type == typ) {
			names = append(names, b.Name)
		}
	}
	sort.Strings(names)
	return names
}

func dedupeStrings(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
