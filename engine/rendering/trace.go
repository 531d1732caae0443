package rendering

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Tracing sensitive values through render functions.
//
// A render function gets its configuration without marks, and what it makes of a sensitive value
// cannot be recognised by the value in every case: a number, a boolean, a map key, a string it
// upper-cased, hashed or templated. So the engine renders an instance whose configuration holds
// sensitive values a second time, with each of them replaced by another value of its type
// (alternative), and compares the two renderings: whatever differs depends on a sensitive value,
// and its place is marked (render.Sensitivity) on the objects, its outputs are marked sensitive
// for the instances that read them, and the parts of strings that differ become secrets of the
// landscape that every message is redacted of. Render functions are pure, so what does not
// differ does not depend on the sensitive values.
//
// The alternative replaces every letter and digit of a string by another of its class (so that
// names and formats stay valid), a number by its successor, a boolean by its negation, and, on a
// first attempt, the keys of sensitive maps too. A rendering that fails with the alternative is
// tried again with the keys kept and numbers decreased; if that fails too, every value of the
// instance's objects is hidden and its outputs are sensitive, and the plan says so.

// minDerived is the length from which a differing part of a rendered string becomes a secret of
// the whole landscape; shorter parts (a digit) are hidden only where they were found, since
// redacting them everywhere would redact everything.
const minDerived = 6

// traced is what the comparison of the two renderings found.
type traced struct {
	// objects are the marks of out.Objects, by index; parts those of each part's objects.
	objects []*render.Sensitivity
	parts   map[string][]*render.Sensitivity
	// outputs are the outputs that differ.
	outputs map[string]bool
	// derived are parts of rendered strings that differ, long enough to be landscape secrets.
	derived []string
	// notices, conditions and predictions are out's, with what differs replaced.
	notices     []string
	conditions  []render.Condition
	predictions []render.Prediction
	// untraced is set when neither alternative rendered: everything is hidden.
	untraced error
}

// trace renders the instance again with alternatives of its sensitive values and compares.
func trace(fn render.Func, in render.Input, prep prepared, out *render.Output) traced {
	var alt *render.Output
	var errs []error
	for attempt := range 2 {
		cfg := alternative(prep.Config, prep.Marked, attempt)
		if attempt == 0 && cfg.RawEquals(prep.Config) {
			// The sensitive values are all unknown yet (an output not rendered before apply):
			// nothing to trace, and nothing to render twice.
			return traced{notices: out.Notices, conditions: out.Conditions, predictions: out.Predictions}
		}
		altIn := in
		altIn.Config = cfg
		o, err := renderQuietly(fn, altIn)
		if err == nil {
			alt = o
			break
		}
		errs = append(errs, err)
	}
	if alt == nil {
		return untraced(out, errors.Join(errs...))
	}
	t := traced{parts: map[string][]*render.Sensitivity{}, outputs: map[string]bool{}}
	seen := map[string]bool{}
	derive := func(strs []string) {
		for _, s := range strs {
			if len(s) >= minDerived && !seen[s] {
				seen[s] = true
				t.derived = append(t.derived, s)
			}
		}
	}
	var derived []string
	t.objects, derived = compareObjects(out.Objects, alt.Objects)
	derive(derived)
	altParts := map[string]render.Component{}
	for _, p := range alt.Components {
		altParts[p.Name] = p
	}
	for _, p := range out.Components {
		ap, ok := altParts[p.Name]
		if !ok {
			t.parts[p.Name] = valuesOnly(p.Objects)
			continue
		}
		t.parts[p.Name], derived = compareObjects(p.Objects, ap.Objects)
		derive(derived)
	}
	for name, v := range out.Outputs {
		if av, ok := alt.Outputs[name]; !ok || !sameValue(v, av) {
			t.outputs[name] = true
		}
	}
	t.notices = redactTexts(out.Notices, alt.Notices)
	t.conditions = redactEach(out.Conditions, alt.Conditions, func(c *render.Condition) *string { return &c.Message })
	t.predictions = redactEach(out.Predictions, alt.Predictions, func(p *render.Prediction) *string { return &p.Description })
	return t
}

// renderQuietly calls a render function with an alternative configuration: a panic or a
// deferral is a failure like an error.
func renderQuietly(fn render.Func, in render.Input) (out *render.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	out, err = fn(in)
	if err == nil && out == nil {
		err = errors.New("no output")
	}
	return out, err
}

// untraced is the result when no alternative rendered: every value of every object is hidden
// and every output is sensitive.
func untraced(out *render.Output, err error) traced {
	t := traced{parts: map[string][]*render.Sensitivity{}, outputs: map[string]bool{}, untraced: err,
		notices: out.Notices, conditions: out.Conditions, predictions: out.Predictions}
	t.objects = valuesOnly(out.Objects)
	for _, p := range out.Components {
		t.parts[p.Name] = valuesOnly(p.Objects)
	}
	for name := range out.Outputs {
		t.outputs[name] = true
	}
	return t
}

func valuesOnly(objs []render.Object) []*render.Sensitivity {
	out := make([]*render.Sensitivity, len(objs))
	for i, o := range objs {
		if o.Object != nil {
			out[i] = render.ValuesOnly(o.Object.Object)
		}
	}
	return out
}

// apply adds the marks to the rendered objects and parts.
func (t traced) apply(out *render.Output) {
	for i := range out.Objects {
		if i < len(t.objects) {
			out.Objects[i].Sensitive = render.MergeSensitivity(out.Objects[i].Sensitive, t.objects[i])
		}
	}
	for j := range out.Components {
		marks := t.parts[out.Components[j].Name]
		objs := slices.Clone(out.Components[j].Objects)
		for i := range objs {
			if i < len(marks) {
				objs[i].Sensitive = render.MergeSensitivity(objs[i].Sensitive, marks[i])
			}
		}
		out.Components[j].Objects = objs
	}
	out.Notices, out.Conditions, out.Predictions = t.notices, t.conditions, t.predictions
}

// compareObjects marks, for each real object, what differs from its counterpart in the
// alternative rendering: the object at the same index when both renderings have the same kinds
// in the same order, else the object with the same identity. An object without a counterpart
// has its values hidden. derived are the parts of strings that differ from their counterparts.
func compareObjects(real, alt []render.Object) (marks []*render.Sensitivity, derived []string) {
	out := make([]*render.Sensitivity, len(real))
	byIndex := len(real) == len(alt)
	for i := range real {
		if byIndex && (real[i].Object == nil || alt[i].Object == nil || real[i].Cluster != alt[i].Cluster ||
			real[i].Object.GroupVersionKind() != alt[i].Object.GroupVersionKind()) {
			byIndex = false
		}
	}
	identity := func(o render.Object) string {
		if o.Object == nil {
			return ""
		}
		return strings.Join([]string{o.Cluster, o.Object.GetAPIVersion(), o.Object.GetKind(), o.Object.GetNamespace(), o.Object.GetName()}, "/")
	}
	altBy := map[string]*unstructured.Unstructured{}
	for _, o := range alt {
		altBy[identity(o)] = o.Object
	}
	for i, o := range real {
		if o.Object == nil {
			continue
		}
		var counterpart *unstructured.Unstructured
		if byIndex {
			counterpart = alt[i].Object
		} else {
			counterpart = altBy[identity(o)]
		}
		if counterpart == nil {
			out[i] = render.ValuesOnly(o.Object.Object)
			continue
		}
		c := &comparison{contents: isContents(o.Object), seen: map[string]bool{}}
		s := c.compare(o.Object.Object, counterpart.Object, true)
		if s != nil {
			s.Strings = c.strings
		} else if len(c.strings) > 0 {
			s = &render.Sensitivity{Strings: c.strings}
		}
		out[i] = s
		derived = append(derived, c.derived...)
	}
	return out, derived
}

// comparison compares one object with its alternative, collecting the differing parts of its
// strings: all of them for the object's own messages, and those found against a counterpart
// (derived) for the whole landscape's. A value under a key the alternative does not have has no
// counterpart: it may depend on nothing sensitive ("present" under a sensitive label key), and
// is hidden only where it stands.
type comparison struct {
	contents bool
	strings  []string
	derived  []string
	seen     map[string]bool
}

func (c *comparison) note(s string) { c.add(s, true) }

func (c *comparison) add(s string, derived bool) {
	if s == "" {
		return
	}
	if !c.seen[s] {
		c.seen[s] = true
		c.strings = append(c.strings, s)
	}
	if derived && !slices.Contains(c.derived, s) {
		c.derived = append(c.derived, s)
	}
}

// compare returns the marks of what differs between a and b, nil when nothing does. root is
// set for the object itself, whose stringData holds documents when it packs a ManagedResource's
// objects.
func (c *comparison) compare(a, b any, root bool) *render.Sensitivity {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			c.noteAll(a, b, false)
			return &render.Sensitivity{Value: true}
		}
		s := &render.Sensitivity{}
		var missing []string
		for k := range bv {
			if _, in := av[k]; !in {
				missing = append(missing, k)
			}
		}
		slices.Sort(missing)
		for _, k := range sortedKeys(av) {
			var child *render.Sensitivity
			if bk, in := bv[k]; in {
				child = c.compare(av[k], bk, false)
				if root && c.contents && k == "stringData" && child != nil {
					c.documents(av[k], bk, child)
				}
			} else {
				// A key the alternative does not have is a sensitive key; its counterpart is the
				// key the alternative has instead, when there is one.
				if len(missing) == 1 {
					c.note(middle(k, missing[0]))
					c.noteAll(av[k], bv[missing[0]], true)
				} else {
					c.add(k, true)
					c.noteAll(av[k], nil, false)
				}
				child = &render.Sensitivity{Key: true, Value: true}
			}
			if child != nil {
				if s.Fields == nil {
					s.Fields = map[string]*render.Sensitivity{}
				}
				s.Fields[k] = child
			}
		}
		if s.Fields == nil {
			return nil // only the alternative has more keys: nothing of a to hide
		}
		return s
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			c.noteAll(a, b, false)
			return &render.Sensitivity{Value: true}
		}
		s := &render.Sensitivity{}
		for i := range av {
			if child := c.compare(av[i], bv[i], false); child != nil {
				if s.Items == nil {
					s.Items = map[int]*render.Sensitivity{}
				}
				s.Items[i] = child
			}
		}
		if s.Items == nil {
			return nil
		}
		return s
	case string:
		bs, _ := b.(string)
		c.note(middle(av, bs))
		return &render.Sensitivity{Value: true}
	default:
		c.noteAll(a, b, true)
		return &render.Sensitivity{Value: true}
	}
}

// documents marks, inside the YAML documents of a contents Secret's stringData, what differs.
func (c *comparison) documents(a, b any, marks *render.Sensitivity) {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	for k, m := range marks.Fields {
		as, _ := am[k].(string)
		bs, ok := bm[k].(string)
		if !ok || m.Key {
			continue
		}
		var ad, bd map[string]any
		if yaml.Unmarshal([]byte(as), &ad) != nil || yaml.Unmarshal([]byte(bs), &bd) != nil {
			continue
		}
		inner := &comparison{seen: map[string]bool{}}
		m.Doc = inner.compare(ad, bd, false)
		if m.Doc == nil {
			m.Doc = &render.Sensitivity{}
		}
		for _, s := range inner.strings {
			c.add(s, slices.Contains(inner.derived, s))
		}
	}
}

// noteAll notes the parts of a's scalars that differ from b's, the strings and numbers as they
// print. With derived they are the counterparts at the same place, and long ones become secrets
// of the landscape; without (b is a different structure, or missing) they are noted for the
// object's own messages only, since pairing them is a guess and "registry.local/app" must not
// become a secret of the whole landscape because a sensitive flag added a container.
func (c *comparison) noteAll(a, b any, derived bool) {
	if b != nil && reflect.DeepEqual(a, b) {
		return
	}
	switch av := a.(type) {
	case string:
		bs, ok := b.(string)
		c.add(middle(av, bs), derived && ok)
	case map[string]any:
		bm, _ := b.(map[string]any)
		for _, k := range sortedKeys(av) {
			c.noteAll(av[k], bm[k], derived && bm != nil)
		}
	case []any:
		bl, _ := b.([]any)
		for i, e := range av {
			var be any
			if i < len(bl) {
				be = bl[i]
			}
			c.noteAll(e, be, derived && len(bl) == len(av))
		}
	case int64:
		c.add(strconv.FormatInt(av, 10), derived && b != nil)
	case float64:
		c.add(strconv.FormatFloat(av, 'f', -1, 64), derived && b != nil)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// middle is the part of a that differs from b: a without the prefix and suffix they share.
func middle(a, b string) string {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return a[p : len(a)-s]
}

// redactEach is redactTexts for one text field of each item (text points at it), against the same
// items of the alternative rendering; it returns copies, nil for none.
func redactEach[T any](real, alt []T, text func(*T) *string) []T {
	texts := func(items []T) []string {
		var out []string
		for i := range items {
			out = append(out, *text(&items[i]))
		}
		return out
	}
	redacted := redactTexts(texts(real), texts(alt))
	var out []T
	for i, item := range real {
		*text(&item) = redacted[i]
		out = append(out, item)
	}
	return out
}

// redactTexts replaces in each text the part that differs from the alternative's text at the
// same index; texts without a counterpart are withheld.
func redactTexts(real, alt []string) []string {
	if real == nil {
		return nil
	}
	out := make([]string, len(real))
	for i, s := range real {
		switch {
		case len(real) != len(alt):
			if slices.Contains(alt, s) {
				out[i] = s
			} else {
				out[i] = "(a message that depends on a sensitive value is not shown)"
			}
		case s == alt[i]:
			out[i] = s
		default:
			m := middle(s, alt[i])
			if m == "" {
				out[i] = s
			} else {
				out[i] = strings.Replace(s, m, "(sensitive value)", 1)
			}
		}
	}
	return out
}

// sameValue compares two outputs.
func sameValue(a, b cty.Value) bool {
	if a == cty.NilVal || b == cty.NilVal {
		return a == b
	}
	return a.RawEquals(b)
}

// traceable are the marked paths a render function may make something of: those outside the
// instance's cluster references, which render functions read only for the cluster's name (a
// sensitive kubeconfig path or context of a cluster block is used to connect, never rendered).
func traceable(marked []cty.Path, attrs []schema.Attribute) []cty.Path {
	clusters := map[string]bool{}
	for _, a := range attrs {
		if a.References == schema.RefCluster {
			clusters[a.Name] = true
		}
	}
	var out []cty.Path
	for _, p := range marked {
		if len(p) > 0 {
			if st, ok := p[0].(cty.GetAttrStep); ok && clusters[st.Name] {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// alternative returns the configuration with every sensitive value (at the marked paths)
// replaced by another value of its type: on the first attempt with the keys of sensitive maps
// replaced too and numbers increased, on the second with keys kept and numbers decreased.
func alternative(config cty.Value, marked []cty.Path, attempt int) cty.Value {
	paths := slices.Clone(marked)
	slices.SortFunc(paths, func(a, b cty.Path) int { return len(a) - len(b) })
	var done []cty.Path
	for _, p := range paths {
		covered := false
		for _, d := range done {
			if hasPrefix(p, d) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		done = append(done, p)
		config = replaceAt(config, p, func(v cty.Value) cty.Value { return perturb(v, attempt) })
	}
	return config
}

func hasPrefix(p, prefix cty.Path) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i := range prefix {
		if !stepEqual(p[i], prefix[i]) {
			return false
		}
	}
	return true
}

func stepEqual(a, b cty.PathStep) bool {
	switch as := a.(type) {
	case cty.GetAttrStep:
		bs, ok := b.(cty.GetAttrStep)
		return ok && as.Name == bs.Name
	case cty.IndexStep:
		bs, ok := b.(cty.IndexStep)
		return ok && as.Key.Type().Equals(bs.Key.Type()) && as.Key.RawEquals(bs.Key)
	}
	return false
}

// replaceAt replaces the value at path with fn of it; a path that does not lead anywhere leaves
// v as it is.
func replaceAt(v cty.Value, path cty.Path, fn func(cty.Value) cty.Value) cty.Value {
	if len(path) == 0 {
		return fn(v)
	}
	if !v.IsKnown() || v.IsNull() {
		return v
	}
	ty := v.Type()
	switch st := path[0].(type) {
	case cty.GetAttrStep:
		if !ty.IsObjectType() || !ty.HasAttribute(st.Name) {
			return v
		}
		attrs := v.AsValueMap()
		attrs[st.Name] = replaceAt(attrs[st.Name], path[1:], fn)
		return cty.ObjectVal(attrs)
	case cty.IndexStep:
		switch {
		case (ty.IsMapType() || ty.IsObjectType()) && st.Key.Type() == cty.String:
			m := v.AsValueMap()
			k := st.Key.AsString()
			if _, ok := m[k]; !ok {
				return v
			}
			m[k] = replaceAt(m[k], path[1:], fn)
			return collection(ty, m, nil)
		case (ty.IsListType() || ty.IsTupleType()) && st.Key.Type() == cty.Number:
			elems := v.AsValueSlice()
			i, acc := st.Key.AsBigFloat().Int64()
			if acc != big.Exact || i < 0 || int(i) >= len(elems) {
				return v
			}
			elems[i] = replaceAt(elems[i], path[1:], fn)
			return collection(ty, nil, elems)
		case ty.IsSetType():
			// A set's elements are addressed by value: the whole set is replaced.
			return fn(v)
		}
	}
	return v
}

// perturb returns another value of v's type: strings with every letter and digit replaced by
// another of its class, numbers increased (attempt 0) or decreased (attempt 1), booleans negated,
// collections element by element, and on attempt 0 the keys of maps and objects too.
func perturb(v cty.Value, attempt int) cty.Value {
	if !v.IsKnown() || v.IsNull() {
		return v
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		s := v.AsString()
		if s == render.UnknownString {
			return v
		}
		return cty.StringVal(rotate(s, attempt))
	case ty == cty.Number:
		delta := big.NewFloat(1)
		if attempt == 1 {
			delta = big.NewFloat(-1)
		}
		return cty.NumberVal(new(big.Float).Add(v.AsBigFloat(), delta))
	case ty == cty.Bool:
		return cty.BoolVal(!v.True())
	case ty.IsMapType() || ty.IsObjectType():
		m := map[string]cty.Value{}
		for k, e := range v.AsValueMap() {
			if attempt == 0 {
				k = rotate(k, attempt)
			}
			m[k] = perturb(e, attempt)
		}
		return collection(ty, m, nil)
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		elems := v.AsValueSlice()
		for i, e := range elems {
			elems[i] = perturb(e, attempt)
		}
		return collection(ty, nil, elems)
	}
	return v
}

// collection rebuilds a map, object, list, tuple or set of ty's kind from new members; a map or
// list whose members no longer share one type becomes an object or tuple.
func collection(ty cty.Type, m map[string]cty.Value, elems []cty.Value) cty.Value {
	uniform := func(vals []cty.Value) bool {
		for _, e := range vals {
			if !e.Type().Equals(vals[0].Type()) {
				return false
			}
		}
		return true
	}
	switch {
	case ty.IsMapType():
		if len(m) == 0 {
			return cty.MapValEmpty(ty.ElementType())
		}
		vals := make([]cty.Value, 0, len(m))
		for _, e := range m {
			vals = append(vals, e)
		}
		if uniform(vals) {
			return cty.MapVal(m)
		}
		return cty.ObjectVal(m)
	case ty.IsObjectType():
		return cty.ObjectVal(m)
	case ty.IsListType():
		if len(elems) == 0 {
			return cty.ListValEmpty(ty.ElementType())
		}
		if uniform(elems) {
			return cty.ListVal(elems)
		}
		return cty.TupleVal(elems)
	case ty.IsSetType():
		if len(elems) == 0 {
			return cty.SetValEmpty(ty.ElementType())
		}
		if uniform(elems) {
			return cty.SetVal(elems)
		}
		return cty.TupleVal(elems)
	default:
		return cty.TupleVal(elems)
	}
}

// rotate replaces every ASCII letter and digit of s by another of its class (a shift of 13 or 7
// letters, 5 or 3 digits), keeping everything else, so that a name stays a name; a string
// without letters or digits gets one appended.
func rotate(s string, attempt int) string {
	letters, digits := 13, 5
	if attempt == 1 {
		letters, digits = 7, 3
	}
	b := []byte(s)
	changed := false
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i], changed = 'a'+(c-'a'+byte(letters))%26, true
		case c >= 'A' && c <= 'Z':
			b[i], changed = 'A'+(c-'A'+byte(letters))%26, true
		case c >= '0' && c <= '9':
			b[i], changed = '0'+(c-'0'+byte(digits))%10, true
		}
	}
	if !changed {
		return s + "x"
	}
	return string(b)
}
