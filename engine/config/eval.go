package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/limits"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Evaluated is a landscape with every value computed that can be known before apply. Values only
// known after apply (outputs of blocks that are not applied yet) are unknown.
type Evaluated struct {
	Landscape *Landscape
	Variables map[string]cty.Value
	Locals    map[string]cty.Value
	Clusters  map[string]cty.Value
	// Instances are the expanded blocks by instance address.
	Instances map[InstanceAddress]*Instance
	Outputs   map[string]cty.Value
	// Skipped counts the instances a targeted evaluation left out (Scope).
	Skipped int

	funcs map[string]function.Function
	scope *Scope
	hooks Hooks
	// failed holds objects with errors; they evaluate to unknown values.
	failed map[Address]bool
	// refValues are the values references to a block see: an instance's outputs, or for an
	// expanded block an object (for_each) or tuple (count) of them.
	refValues map[Address]cty.Value
}

// InstanceAddress names one instance of a block: `seed.a`, `shoot.dev["x"]`, `shoot.dev[0]`; the
// planner adds the parts of composite instances (`shoot.dev["x"].kube_apiserver`). It is text,
// which plans and the state keep as it is; engine/address takes it apart.
type InstanceAddress string

// Instance is one expanded block with its decoded configuration.
type Instance struct {
	Addr  InstanceAddress
	Block *Block
	// Key is the for_each key (string) or count index (number); cty.NilVal when not expanded.
	Key cty.Value
	// Name is the instance's object name: the block name, suffixed with "-<key>" when expanded.
	Name string
	// Config is the block's configuration decoded with its schema.
	Config cty.Value
	// Value is what references to the instance see: its outputs.
	Value cty.Value
	// Clusters are the landscape's evaluated cluster blocks by name, for rendering that reaches
	// a cluster through another block's outputs (a shoot runs in its seed's cluster).
	Clusters map[string]cty.Value
}

// Evaluate computes variables, locals, clusters, block configurations and outputs in
// dependency order. Call it only on a landscape that Parse returned without errors.
func Evaluate(l *Landscape, in *Inputs, funcs map[string]function.Function) (*Evaluated, hcl.Diagnostics) {
	return EvaluateWith(l, in, funcs, Hooks{})
}

// EvaluateWith is Evaluate with hooks into evaluation.
func EvaluateWith(l *Landscape, in *Inputs, funcs map[string]function.Function, hooks Hooks) (*Evaluated, hcl.Diagnostics) {
	e := &Evaluated{
		hooks:     hooks,
		Landscape: l,
		Locals:    map[string]cty.Value{},
		Clusters:  map[string]cty.Value{},
		Instances: map[InstanceAddress]*Instance{},
		Outputs:   map[string]cty.Value{},
		funcs:     funcs,
		refValues: map[Address]cty.Value{},
	}
	e.scope = l.TargetScope(hooks.Targets)
	vars, diags := evaluateVariables(l, in, &hcl.EvalContext{Functions: funcs})
	e.Variables = vars
	order, err := l.evaluationOrder()
	if err != nil {
		return e, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unordered landscape", Detail: err.Error()})
	}
	e.failed = map[Address]bool{}
	for addr := range l.invalid {
		e.failed[addr] = true
	}
	for name := range l.Variables {
		if _, ok := vars[name]; !ok {
			e.failed[Address("var."+name)] = true
		}
	}
	for _, addr := range order {
		if e.failed[addr] {
			diags = append(diags, e.checkMetaArguments(addr)...)
			e.placeholder(addr)
			continue
		}
		var d hcl.Diagnostics
		kind, name, _ := strings.Cut(string(addr), ".")
		switch kind {
		case "var":
			continue
		case "local":
			d = e.evaluateLocal(l.Locals[name])
		case "cluster":
			d = e.evaluateCluster(l.Clusters[name])
		case "output":
			d = e.evaluateOutput(l.Outputs[name])
		default:
			d = e.evaluateBlock(l.Blocks[addr])
		}
		diags = append(diags, d...)
		if d.HasErrors() {
			e.failed[addr] = true
			e.placeholder(addr)
		}
	}
	// Landscape rules relate blocks to one another; they run once every block has its values.
	diags = append(diags, e.checkLandscape(hooks.Now)...)
	return e, diags
}

// placeholder gives a failed object an unknown value, so that objects depending on it are still
// evaluated (and their own problems reported) without errors that only echo the failure.
func (e *Evaluated) placeholder(addr Address) {
	kind, name, _ := strings.Cut(string(addr), ".")
	switch kind {
	case "var":
		e.Variables[name] = cty.DynamicVal
	case "local":
		e.Locals[name] = cty.DynamicVal
	case "cluster":
		e.Clusters[name] = cty.DynamicVal
	case "output":
	default:
		if _, ok := e.Landscape.Blocks[addr]; ok {
			e.refValues[addr] = cty.DynamicVal
		}
	}
}

// checkMetaArguments evaluates the for_each or count of a block that has errors of its own, so
// that one run reports every independent problem of the block: a for_each of the wrong type is
// not hidden behind a missing argument. The instances are not used.
func (e *Evaluated) checkMetaArguments(addr Address) hcl.Diagnostics {
	b, ok := e.Landscape.Blocks[addr]
	if !ok || !e.Landscape.invalid[addr] || (b.ForEach == nil && b.Count == nil) {
		return nil
	}
	_, diags := e.expand(b, e.context())
	return diags
}

// dependsOnFailed reports whether addr refers to an object that failed to evaluate.
func (e *Evaluated) dependsOnFailed(addr Address) bool {
	for _, ref := range e.Landscape.References {
		if ref.From == addr && e.failed[ref.To] {
			return true
		}
	}
	return false
}

// evaluationOrder sorts every object so that each comes after what it refers to; ties break by
// address, so the order is the same on every run.
func (l *Landscape) evaluationOrder() ([]Address, error) {
	g := graph.New(graph.StringHash, graph.Directed())
	add := func(a Address) { _ = g.AddVertex(string(a)) }
	for name := range l.Variables {
		add(Address("var." + name))
	}
	for name := range l.Locals {
		add(Address("local." + name))
	}
	for name := range l.Clusters {
		add(Address("cluster." + name))
	}
	for addr := range l.Blocks {
		add(addr)
	}
	for name := range l.Outputs {
		add(Address("output." + name))
	}
	for _, ref := range l.References {
		if ref.From != ref.To {
			_ = g.AddEdge(string(ref.To), string(ref.From))
		}
	}
	sorted, err := graph.StableTopologicalSort(g, func(a, b string) bool { return a < b })
	if err != nil {
		return nil, fmt.Errorf("landscape graph: %w", err)
	}
	out := make([]Address, len(sorted))
	for i, s := range sorted {
		out[i] = Address(s)
	}
	return out, nil
}

// context builds the evaluation context of the values evaluated so far. Instances of an
// expanded block share one and add each or count in a child context (instanceContext).
func (e *Evaluated) context() *hcl.EvalContext {
	byKind := map[string]map[string]cty.Value{}
	components := map[string]map[string]cty.Value{}
	for addr, val := range e.refValues {
		b := e.Landscape.Blocks[addr]
		if b.Kind == schema.KindComponent {
			if components[b.Type] == nil {
				components[b.Type] = map[string]cty.Value{}
			}
			components[b.Type][b.Name] = val
			continue
		}
		if byKind[string(b.Kind)] == nil {
			byKind[string(b.Kind)] = map[string]cty.Value{}
		}
		byKind[string(b.Kind)][b.Name] = val
	}
	comp := map[string]cty.Value{}
	for typ, m := range components {
		comp[typ] = cty.ObjectVal(m)
	}
	vars := map[string]cty.Value{
		"var":       objectOrEmpty(e.Variables),
		"local":     objectOrEmpty(e.Locals),
		"cluster":   objectOrEmpty(e.Clusters),
		"garden":    objectOrEmpty(byKind[string(schema.KindGarden)]),
		"seed":      objectOrEmpty(byKind[string(schema.KindSeed)]),
		"shoot":     objectOrEmpty(byKind[string(schema.KindShoot)]),
		"component": objectOrEmpty(comp),
	}
	return &hcl.EvalContext{Variables: vars, Functions: e.funcs}
}

// instanceContext is base plus each (for_each) or count (count) of one instance.
func instanceContext(base *hcl.EvalContext, k instanceKey) *hcl.EvalContext {
	if k.each == nil && k.count == cty.NilVal {
		return base
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{}
	if k.each != nil {
		ctx.Variables["each"] = cty.ObjectVal(k.each)
	}
	if k.count != cty.NilVal {
		ctx.Variables["count"] = cty.ObjectVal(map[string]cty.Value{"index": k.count})
	}
	return ctx
}

func objectOrEmpty(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(m)
}

func (e *Evaluated) evaluateLocal(loc *Local) hcl.Diagnostics {
	val, diags := loc.Expr.Value(e.context())
	if diags.HasErrors() {
		return diags
	}
	if d := checkSize(val, loc.Expr.Range().Ptr()); d != nil {
		return append(diags, d)
	}
	e.Locals[loc.Name] = val
	return diags
}

// checkSize refuses a value larger than limits.MaxValueSize, at the expression that made it.
// Every local, variable, output and attribute is checked as it is evaluated, so that no chain of
// values can grow beyond the limit one doubling at a time: go-cty shares the parts of a value,
// and a value built by doubling another forty times is small in memory but expands to 2^40
// parts wherever it is converted, encoded or rendered.
func checkSize(val cty.Value, subject *hcl.Range) *hcl.Diagnostic {
	if err := limits.CheckValue(val); err != nil {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Value too large",
			Detail: fmt.Sprintf("The value is larger than %d MiB (counting the bytes of its strings and %d bytes for every element, and every reference to a shared value as a copy), the most a landscape value may take.",
				limits.MaxValueSize>>20, limits.ElementSize),
			Subject: subject,
		}
	}
	return nil
}

var clusterSpec = hcldec.ObjectSpec{
	"kubeconfig": &hcldec.AttrSpec{Name: "kubeconfig", Type: cty.String},
	"context":    &hcldec.AttrSpec{Name: "context", Type: cty.String},
	"in_cluster": &hcldec.DefaultSpec{
		Primary: &hcldec.AttrSpec{Name: "in_cluster", Type: cty.Bool},
		Default: &hcldec.LiteralSpec{Value: cty.False},
	},
}

func (e *Evaluated) evaluateCluster(c *Cluster) hcl.Diagnostics {
	val, diags := hcldec.Decode(c.Config, clusterSpec, e.context())
	if diags.HasErrors() {
		return diags
	}
	attrs := val.AsValueMap()
	if inCluster := attrs["in_cluster"]; inCluster.IsKnown() && inCluster.True() &&
		(!attrs["kubeconfig"].IsNull() || !attrs["context"].IsNull()) {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Conflicting cluster access",
			Detail:  fmt.Sprintf("Cluster %q sets in_cluster together with kubeconfig or context; in-cluster access uses the pod's service account and takes neither.", c.Name),
			Subject: c.DeclRange.Ptr(),
		}}
	}
	if d := e.checkKubeconfig(c, attrs["kubeconfig"]); d != nil {
		return hcl.Diagnostics{d}
	}
	attrs["name"] = cty.StringVal(c.Name)
	e.Clusters[c.Name] = cty.ObjectVal(attrs)
	return nil
}

// MissingKubeconfigs warns, at their kubeconfig attributes, about the files cluster blocks name
// that do not exist: for validate, which connects to nothing. A warning, not an error, since a
// pipeline may write the file before it plans, but most often it is a typo that only the plan
// would report otherwise (as an error at the cluster block; offline plans need no file).
func (e *Evaluated) MissingKubeconfigs() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(e.Clusters)) {
		c := e.Landscape.Clusters[name]
		v := e.Clusters[name]
		if c == nil || !v.IsKnown() || v.IsNull() || !v.Type().IsObjectType() || !v.Type().HasAttribute("kubeconfig") {
			continue
		}
		diags = append(diags, e.kubeconfigExists(c, v.GetAttr("kubeconfig"))...)
	}
	return diags
}

// kubeconfigExists is MissingKubeconfigs for one cluster block.
func (e *Evaluated) kubeconfigExists(c *Cluster, kc cty.Value) hcl.Diagnostics {
	kc, marks := kc.UnmarkDeep()
	if e.Landscape.Paths == nil || kc.IsNull() || !kc.IsKnown() {
		return nil
	}
	path, _, err := e.Landscape.Paths.Kubeconfig(kc.AsString())
	if err != nil {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	shown := fmt.Sprintf("%q", kc.AsString())
	if len(marks) > 0 {
		shown = "named by a sensitive value (not shown)"
	}
	subject := hcldec.SourceRange(c.Config, clusterSpec["kubeconfig"])
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning, Summary: "Kubeconfig not found",
		Detail: fmt.Sprintf("The kubeconfig %s of cluster %q does not exist (yet); relative paths are relative to the landscape directory, ~/ is your home directory. "+
			"Plans and applies need it; validate and offline plans do not.", shown, c.Name),
		Subject: &subject,
	}}
}

// checkKubeconfig refuses, in confined mode, a kubeconfig path outside the landscape directory
// and the operator's kubeconfig directories, and a kubeconfig inside the landscape directory
// that would run a program or read a file outside it (landscapefs.Dir.CheckKubeconfig), at the
// kubeconfig attribute, before anything connects.
func (e *Evaluated) checkKubeconfig(c *Cluster, kc cty.Value) *hcl.Diagnostic {
	paths := e.Landscape.Paths
	kc, _ = kc.UnmarkDeep()
	if paths == nil || !paths.Confined() || kc.IsNull() || !kc.IsKnown() {
		return nil
	}
	_, own, err := paths.Kubeconfig(kc.AsString())
	if err == nil && own {
		err = paths.CheckKubeconfig(kc.AsString())
	}
	if err == nil {
		return nil
	}
	subject := hcldec.SourceRange(c.Config, clusterSpec["kubeconfig"])
	return confinementDiagnostic(err, &subject)
}

// confinementDiagnostic words a refusal of confined mode, or another error of reading a file
// the landscape names, at subject.
func confinementDiagnostic(err error, subject *hcl.Range) *hcl.Diagnostic {
	summary := "Unreadable file"
	switch {
	case errors.Is(err, landscapefs.ErrOutside):
		summary = "Outside the landscape directory"
	case errors.Is(err, landscapefs.ErrKubeconfigRefused):
		summary = "Kubeconfig refused in confined mode"
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: upperFirst(err.Error()) + ".", Subject: subject}
}

// upperFirst capitalises an error's first letter for a diagnostic's detail.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (e *Evaluated) evaluateOutput(o *Output) hcl.Diagnostics {
	val, diags := o.Expr.Value(e.context())
	if diags.HasErrors() {
		return diags
	}
	if d := checkSize(val, o.Expr.Range().Ptr()); d != nil {
		return append(diags, d)
	}
	if !o.Sensitive && containsMark(val, SensitiveMark) {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Output refers to sensitive values",
			Detail:  fmt.Sprintf("The value of output %q is derived from sensitive values; declare the output with sensitive = true so that it is never printed.", o.Name),
			Subject: o.Expr.Range().Ptr(),
		}}
	}
	if o.Sensitive {
		val = val.Mark(SensitiveMark)
	}
	e.Outputs[o.Name] = val
	return nil
}

func containsMark(v cty.Value, mark any) bool {
	_, pvm := v.UnmarkDeepWithPaths()
	for _, pm := range pvm {
		if _, ok := pm.Marks[mark]; ok {
			return true
		}
	}
	return false
}

// instanceKey is one expansion of a block.
type instanceKey struct {
	key   cty.Value // string key, number index, or NilVal
	each  map[string]cty.Value
	count cty.Value
}

func (e *Evaluated) evaluateBlock(b *Block) hcl.Diagnostics {
	base := e.context()
	keys, diags := e.expand(b, base)
	if diags.HasErrors() {
		return diags
	}
	spec := b.Schema.Body.Spec()
	instanceValues := map[string]cty.Value{}
	var tuple []cty.Value
	// record gives references to the block the instance's value under its key.
	record := func(k instanceKey, v cty.Value) {
		if k.key != cty.NilVal && k.key.Type() == cty.String {
			instanceValues[k.key.AsString()] = v
		} else {
			tuple = append(tuple, v)
		}
	}
	for _, k := range keys {
		inst := &Instance{Block: b, Key: k.key, Name: b.Name, Addr: InstanceAddress(b.Addr), Clusters: e.Clusters}
		switch {
		case k.key == cty.NilVal:
		case k.key.Type() == cty.String:
			inst.Name = b.Name + "-" + k.key.AsString()
			inst.Addr = InstanceAddress(string(b.Addr) + address.StringKey(k.key.AsString()).String())
		default:
			idx, _ := k.key.AsBigFloat().Int64()
			inst.Name = fmt.Sprintf("%s-%d", b.Name, idx)
			inst.Addr = InstanceAddress(string(b.Addr) + address.IntKey(int(idx)).String())
		}
		if e.scope.Skips(b, inst.Addr) {
			// Left out of a targeted plan: references see what they would before apply
			// (its name), and the instance is not decoded, checked, rendered or graphed.
			e.Skipped++
			record(k, outputsBeforeApply(b.Schema, inst.Name))
			continue
		}
		cfg, d := hcldec.Decode(b.Config, spec, instanceContext(base, k))
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		inst.Config = markSensitive(cfg, &b.Schema.Body)
		cfg = inst.Config
		valueDiags := checkValues(e.Landscape.Paths, b.Config, &b.Schema.Body, cfg)
		if !valueDiags.HasErrors() {
			// Rules relate attributes; they run on values that passed their own checks.
			valueDiags = append(valueDiags, e.checkRules(b, cfg)...)
		}
		if k.key != cty.NilVal {
			// Instances share their source; say which one a value problem belongs to.
			for _, vd := range valueDiags {
				vd.Detail = fmt.Sprintf("In %s: %s", inst.Addr, vd.Detail)
			}
		}
		diags = append(diags, valueDiags...)
		inst.Value = outputsBeforeApply(b.Schema, inst.Name)
		if e.hooks.Instance != nil && !valueDiags.HasErrors() {
			val, hd := e.hooks.Instance(inst)
			diags = append(diags, hd...)
			if !hd.HasErrors() && val != cty.NilVal {
				inst.Value = val
			}
		}
		e.Instances[inst.Addr] = inst
		record(k, inst.Value)
	}
	switch {
	case b.ForEach != nil:
		e.refValues[b.Addr] = objectOrEmpty(instanceValues)
	case b.Count != nil:
		e.refValues[b.Addr] = cty.TupleVal(tuple)
		if len(tuple) == 0 {
			e.refValues[b.Addr] = cty.EmptyTupleVal
		}
	case len(tuple) == 1:
		e.refValues[b.Addr] = tuple[0]
	default:
		e.refValues[b.Addr] = cty.UnknownVal(b.Schema.OutputType())
	}
	return diags
}

// outputsBeforeApply is an instance's value before it is applied: its name is known, every
// other output only after apply.
func outputsBeforeApply(s *schema.Schema, name string) cty.Value {
	attrs := map[string]cty.Value{}
	for _, o := range s.Outputs {
		v := cty.UnknownVal(o.Type)
		if o.Name == "name" && o.Type.Equals(cty.String) {
			v = cty.StringVal(name)
		}
		if o.Sensitive {
			v = v.Mark(SensitiveMark)
		}
		attrs[o.Name] = v
	}
	return objectOrEmpty(attrs)
}

// expand evaluates for_each or count into the block's instances.
func (e *Evaluated) expand(b *Block, ctx *hcl.EvalContext) ([]instanceKey, hcl.Diagnostics) {
	switch {
	case b.ForEach != nil:
		return e.expandForEach(b, ctx)
	case b.Count != nil:
		return e.expandCount(b, ctx)
	default:
		return []instanceKey{{key: cty.NilVal, count: cty.NilVal}}, nil
	}
}

func (e *Evaluated) expandForEach(b *Block, ctx *hcl.EvalContext) ([]instanceKey, hcl.Diagnostics) {
	val, diags := b.ForEach.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	fail := func(detail string) ([]instanceKey, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: detail, Subject: b.ForEach.Range().Ptr()}}
	}
	if val.IsMarked() {
		return fail("for_each must not use sensitive values: its keys appear in addresses and plans.")
	}
	// A map's keys are known once the map is; its values may be unknown until apply.
	keysKnown := val.IsKnown() && (!val.Type().IsSetType() || val.IsWhollyKnown())
	if !keysKnown {
		if e.dependsOnFailed(b.Addr) {
			return nil, nil // unknown because of an error reported elsewhere
		}
		return fail("for_each depends on values that are known only after apply; its keys must be known when planning.")
	}
	if val.IsNull() {
		return fail("for_each must not be null; use an empty map or set for no instances.")
	}
	ty := val.Type()
	var keys []instanceKey
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for k, v := range val.AsValueMap() {
			keys = append(keys, instanceKey{key: cty.StringVal(k), each: map[string]cty.Value{"key": cty.StringVal(k), "value": v}, count: cty.NilVal})
		}
	case ty.IsSetType():
		if !ty.ElementType().Equals(cty.String) {
			return fail(fmt.Sprintf("for_each takes a map or a set of strings, not a set of %s.", ty.ElementType().FriendlyName()))
		}
		for _, v := range val.AsValueSlice() {
			if v.IsNull() {
				return fail("for_each sets must not contain null.")
			}
			keys = append(keys, instanceKey{key: v, each: map[string]cty.Value{"key": v, "value": v}, count: cty.NilVal})
		}
	default:
		return fail(fmt.Sprintf("for_each takes a map or a set of strings, not a %s. Convert a list of strings with toset(...).", ty.FriendlyName()))
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].key.AsString() < keys[j].key.AsString() })
	return keys, nil
}

func (e *Evaluated) expandCount(b *Block, ctx *hcl.EvalContext) ([]instanceKey, hcl.Diagnostics) {
	val, diags := b.Count.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	fail := func(detail string) ([]instanceKey, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid count argument", Detail: detail, Subject: b.Count.Range().Ptr()}}
	}
	if val.IsMarked() {
		return fail("count must not use sensitive values: the number of instances appears in plans.")
	}
	if !val.IsKnown() {
		if e.dependsOnFailed(b.Addr) {
			return nil, nil // unknown because of an error reported elsewhere
		}
		return fail("count depends on values that are known only after apply; it must be known when planning.")
	}
	if val.IsNull() || !val.Type().Equals(cty.Number) {
		return fail("count must be a whole number.")
	}
	n, acc := val.AsBigFloat().Int64()
	if acc != big.Exact || n < 0 {
		return fail("count must be a whole number that is zero or more.")
	}
	if n > 10000 {
		return fail("count must be at most 10000.")
	}
	keys := make([]instanceKey, 0, n)
	for i := range n {
		idx := cty.NumberIntVal(i)
		keys = append(keys, instanceKey{key: idx, count: idx})
	}
	return keys, nil
}

// checkValues runs a schema's allowed values and checks on the known values of a decoded body,
// pointing each problem at the expression that produced the value.
func checkValues(paths *landscapefs.Dir, body hcl.Body, sb *schema.Body, val cty.Value) hcl.Diagnostics {
	if val.IsNull() || !val.IsKnown() {
		return nil
	}
	content, _, _ := body.PartialContent(hcldec.ImpliedSchema(sb.Spec()))
	if content == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, a := range sb.Attributes {
		attr, ok := content.Attributes[a.Name]
		if !ok {
			continue
		}
		v := val.GetAttr(a.Name)
		plain, marks := v.UnmarkDeep()
		if !plain.IsWhollyKnown() || plain.IsNull() {
			continue
		}
		if d := checkSize(plain, attr.Expr.Range().Ptr()); d != nil {
			diags = append(diags, d)
			continue
		}
		if a.Path && paths != nil {
			if d := checkPaths(paths, plain, marks, attr.Expr.Range().Ptr()); d != nil {
				diags = append(diags, d)
				continue
			}
		}
		problems := []string{}
		if len(a.AllowedValues) > 0 && plain.Type().Equals(cty.String) && !slices.Contains(a.AllowedValues, plain.AsString()) {
			problems = append(problems, fmt.Sprintf("The value %q is not allowed for %s; use one of %s.%s", plain.AsString(), a.Name, quoteAll(a.AllowedValues), diag.DidYouMean(plain.AsString(), a.AllowedValues)))
		}
		for _, c := range a.Checks {
			if msg := c.Func(plain); msg != "" {
				problems = append(problems, msg)
			}
		}
		for _, msg := range problems {
			if len(marks) > 0 {
				msg = fmt.Sprintf("The sensitive value of %s is not valid (not shown).", a.Name)
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid value for " + a.Name,
				Detail: msg, Subject: attr.Expr.Range().Ptr(),
			})
		}
	}
	for _, blk := range sb.Blocks {
		var blocks []*hcl.Block
		for _, hb := range content.Blocks {
			if hb.Type == blk.Name {
				blocks = append(blocks, hb)
			}
		}
		nested := val.GetAttr(blk.Name)
		if len(blocks) == 0 || nested.IsNull() || !nested.IsKnown() {
			continue
		}
		if blk.Nesting == schema.NestingSingle {
			diags = append(diags, checkValues(paths, blocks[0].Body, &blk.Body, nested)...)
			continue
		}
		elems := nested.AsValueSlice()
		for i := range min(len(elems), len(blocks)) {
			diags = append(diags, checkValues(paths, blocks[i].Body, &blk.Body, elems[i])...)
		}
	}
	return diags
}

// checkPaths checks the paths a path attribute names (a string, or a collection of strings)
// under the landscape's policy: in confined mode each must stay inside the landscape directory.
func checkPaths(paths *landscapefs.Dir, v cty.Value, marks cty.ValueMarks, subject *hcl.Range) *hcl.Diagnostic {
	var names []string
	switch {
	case v.Type() == cty.String:
		names = append(names, v.AsString())
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
				names = append(names, e.AsString())
			}
		}
	}
	for _, name := range names {
		path, err := paths.Path(name)
		if err != nil {
			d := confinementDiagnostic(err, subject)
			if len(marks) > 0 {
				d.Detail = "A path the landscape names leaves the landscape directory, which confined mode refuses (the sensitive path is not shown)."
			}
			return d
		}
		// A missing file or chart is reported where it is named, by validate as well as by a
		// plan, rather than by the render that would need it. A URL (an OCI chart reference) is
		// left to the component, which says what it supports.
		if strings.Contains(name, "://") {
			continue
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			shown := fmt.Sprintf("%q", name)
			if len(marks) > 0 {
				shown = "a sensitive path (not shown)"
			}
			return &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "No such file or directory",
				Detail:  fmt.Sprintf("The landscape names %s, which does not exist; paths are relative to the landscape directory.", shown),
				Subject: subject,
			}
		}
	}
	return nil
}

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// checkRules runs the schema's rules on a decoded instance configuration.
func (e *Evaluated) checkRules(b *Block, cfg cty.Value) hcl.Diagnostics {
	if len(b.Schema.Rules) == 0 {
		return nil
	}
	referenced := e.referencedConfigs(b)
	var diags hcl.Diagnostics
	for _, rule := range b.Schema.Rules {
		for _, v := range rule.Func(cfg, referenced) {
			subject := rangeOfPath(b.Config, &b.Schema.Body, v.Path)
			if subject == nil {
				subject = b.DeclRange.Ptr()
			}
			summary := "Invalid " + string(b.Kind)
			if len(v.Path) > 0 {
				summary = "Invalid value for " + v.Path[len(v.Path)-1]
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: v.Message, Subject: subject})
		}
	}
	return diags
}

// referencedConfigs returns, by attribute name, the configuration of the block instance each
// reference attribute of b points at, where that instance is known without evaluation
// (`seed.a` or `seed.a["x"]`, not `seed.a[each.key]`).
func (e *Evaluated) referencedConfigs(b *Block) map[string]cty.Value {
	content, _, _ := b.Config.PartialContent(hcldec.ImpliedSchema(b.Schema.Body.Spec()))
	out := map[string]cty.Value{}
	if content == nil {
		return out
	}
	for _, a := range b.Schema.Body.Attributes {
		attr, ok := content.Attributes[a.Name]
		if a.References == "" || !ok {
			continue
		}
		t, diags := hcl.AbsTraversalForExpr(attr.Expr)
		if diags.HasErrors() || len(t) < 2 {
			continue
		}
		addr := InstanceAddress(t.RootName() + "." + traverseName(t[1]))
		if len(t) > 2 {
			if idx, ok := t[2].(hcl.TraverseIndex); ok && idx.Key.Type().Equals(cty.String) {
				addr += InstanceAddress(address.StringKey(idx.Key.AsString()).String())
			}
		}
		if inst, ok := e.Instances[addr]; ok {
			out[a.Name] = inst.Config
		}
	}
	return out
}

// rangeOfPath finds the source range of the attribute at path within body, descending into
// nested blocks (the first block of a repeated type); nil when it is not written there.
func rangeOfPath(body hcl.Body, sb *schema.Body, path []string) *hcl.Range {
	if len(path) == 0 {
		return nil
	}
	content, _, _ := body.PartialContent(hcldec.ImpliedSchema(sb.Spec()))
	if content == nil {
		return nil
	}
	if len(path) == 1 {
		if attr, ok := content.Attributes[path[0]]; ok {
			return attr.Expr.Range().Ptr()
		}
	}
	nested := sb.Block(path[0])
	if nested == nil {
		return nil
	}
	for _, blk := range content.Blocks {
		if blk.Type == path[0] {
			if r := rangeOfPath(blk.Body, &nested.Body, path[1:]); r != nil {
				return r
			}
			return blk.DefRange.Ptr()
		}
	}
	return nil
}

// markSensitive marks the values of attributes the schema declares sensitive, at every nesting
// level, so that they are never printed whatever expression produced them.
func markSensitive(val cty.Value, sb *schema.Body) cty.Value {
	if val.IsNull() || !val.IsKnown() || !val.Type().IsObjectType() {
		return val
	}
	attrs := val.AsValueMap()
	for _, a := range sb.Attributes {
		if v, ok := attrs[a.Name]; ok && a.Sensitive {
			attrs[a.Name] = v.Mark(SensitiveMark)
		}
	}
	for _, blk := range sb.Blocks {
		v, ok := attrs[blk.Name]
		if !ok || v.IsNull() || !v.IsKnown() {
			continue
		}
		if blk.Nesting == schema.NestingSingle {
			attrs[blk.Name] = markSensitive(v, &blk.Body)
			continue
		}
		elems := v.AsValueSlice()
		for i := range elems {
			elems[i] = markSensitive(elems[i], &blk.Body)
		}
		switch {
		case len(elems) == 0:
		case v.Type().IsListType():
			attrs[blk.Name] = cty.ListVal(elems)
		default:
			attrs[blk.Name] = cty.TupleVal(elems)
		}
	}
	if len(attrs) == 0 {
		return val
	}
	return cty.ObjectVal(attrs)
}
