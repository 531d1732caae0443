package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/kinds"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Redaction by place: a desired object's render.Sensitivity marks the fields, keys and names that
// depend on sensitive values (engine/rendering traces them); the plan hides their values, shows
// their keys as "(sensitive value)" in field paths and their names so in object lines, whatever
// type the value has. The value-based redactor (render.Redactor) still hides every string that
// holds a secret of the landscape, wherever it is.

// hidden is what plans show in place of a sensitive value, key or name.
const hidden = object.HiddenValue

// SensitiveIdentityAnnotation marks an object whose name or namespace depends on a sensitive
// value ("name", "namespace" or "name,namespace"): a later plan that deletes it, once the
// landscape no longer renders it, hides them too, although it no longer knows the value.
const SensitiveIdentityAnnotation = "declarative-gardener.io/sensitive-identity"

// marks resolves field paths of one desired object against its sensitivity.
type marks struct {
	obj map[string]any
	s   *render.Sensitivity
	// red is the landscape's redactor; local redacts the strings the object's own marks name
	// (render.Sensitivity.Strings), which may be too short to redact anywhere else.
	red, local *render.Redactor
	// docs are the decoded documents of a ManagedResource contents Secret, by data key.
	docs map[string]any
}

func newMarks(d *Desired, red *render.Redactor) *marks {
	m := &marks{obj: d.Object.Object, s: d.Sensitive, red: red}
	if d.Sensitive != nil && len(d.Sensitive.Strings) > 0 {
		m.local = render.NewRedactor(d.Sensitive.Strings)
	}
	return m
}

// redact replaces the secrets of the landscape and of the object in a text.
func (m *marks) redact(s string) string {
	if m == nil {
		return s
	}
	return m.local.Redact(m.red.Redact(s))
}

// changes hides the values of changes at marked places and the marked keys in their paths.
func (m *marks) changes(cs []FieldChange) []FieldChange {
	for i, c := range cs {
		hide, shown := m.field(c.Path)
		if r := m.red.Redact(shown); r != shown {
			hide, shown = true, r // a key holding a secret of the landscape
		}
		c.Path = shown
		if hide {
			c.Sensitive, c.Before, c.After = true, nil, nil
		}
		cs[i] = c
	}
	return cs
}

// path returns a field path with its marked keys hidden, for conflicts and reasons.
func (m *marks) path(p string) string {
	_, shown := m.field(p)
	if m == nil {
		return shown
	}
	return m.red.Redact(shown)
}

// pathStep is one step of a field path: ".name" (field) or "[text]".
type pathStep struct {
	field bool
	text  string
}

// parsePath splits a field path in the form diff.Change.Path documents. A bracket ends at the
// first "]" followed by the end, "." or "[", so that keys may hold brackets.
func parsePath(p string) []pathStep {
	var steps []pathStep
	for len(p) > 0 {
		switch p[0] {
		case '.':
			end := strings.IndexAny(p[1:], ".[")
			if end < 0 {
				end = len(p) - 1
			}
			steps = append(steps, pathStep{field: true, text: p[1 : end+1]})
			p = p[end+1:]
		case '[':
			end := -1
			for i := 1; i < len(p); i++ {
				if p[i] == ']' && (i+1 == len(p) || p[i+1] == '.' || p[i+1] == '[') {
					end = i
					break
				}
			}
			if end < 0 {
				return append(steps, pathStep{text: p[1:]})
			}
			steps = append(steps, pathStep{text: p[1:end]})
			p = p[end+1:]
		default:
			return append(steps, pathStep{field: true, text: p})
		}
	}
	return steps
}

func formatPath(steps []pathStep) string {
	var b strings.Builder
	for _, s := range steps {
		if s.field {
			b.WriteString("." + s.text)
		} else {
			b.WriteString("[" + s.text + "]")
		}
	}
	return b.String()
}

// field resolves a field path in the object: whether its value is marked (or anything inside
// it), and the path with marked keys replaced. A step the object does not have (a field only the
// live object has) is presumed marked where its map has marked keys or is marked itself.
func (m *marks) field(path string) (hide bool, shown string) {
	if m == nil || m.s == nil {
		return false, path
	}
	steps := parsePath(path)
	if len(steps) > 1 && steps[0].field && steps[0].text == "contents" && !steps[1].field {
		// A packed object of a ManagedResource's Secret (managedContents): resolved in its
		// document.
		key := steps[1].text
		data := m.s.Field("stringData").Field(key)
		if data.Key {
			steps[1].text = hidden
		}
		node := data.Doc
		if node == nil && data.Any() {
			node = &render.Sensitivity{Value: true}
		}
		hide = data.Key
		m.resolve(steps[2:], m.document(key), node, &hide)
		return hide, formatPath(steps)
	}
	m.resolve(steps, m.obj, m.s, &hide)
	return hide, formatPath(steps)
}

// resolve walks steps through value cur and its marks node, hiding marked keys in the steps (in
// place) and setting hide when the value they lead to is marked.
func (m *marks) resolve(steps []pathStep, cur any, node *render.Sensitivity, hide *bool) {
	for i, st := range steps {
		if node != nil && node.Value {
			*hide = true
		}
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[st.text]
			child := node.Field(st.text)
			switch {
			case child != nil && child.Key:
				// Only the part that depends on a sensitive value, where the object's marks
				// name it ("secret-(sensitive value)").
				if r := m.redact(st.text); r != st.text {
					steps[i].text = r
				} else {
					steps[i].text = hidden
				}
				*hide = true
			case !ok && (node.HasSensitiveKeys() || (node != nil && node.Value && !st.field)):
				steps[i].text, *hide = hidden, true
			}
			cur, node = next, child
		case []any:
			idx, text := listItem(v, st.text, node)
			steps[i].text = text
			if idx < 0 {
				if node != nil && (node.Value || len(node.Items) > 0) {
					*hide = true
				}
				cur, node = nil, nil
				continue
			}
			cur, node = v[idx], node.Item(idx)
		default:
			// Beyond what the object has: only what was found so far counts.
			cur, node = nil, nil
		}
	}
	if node.Any() {
		*hide = true
	}
}

// listItem finds the element a list step names: "[2]" by index, "[name=etcd]" by its key fields,
// "[value]" by value; -1 when there is none. The text comes back with marked key values hidden.
func listItem(list []any, text string, node *render.Sensitivity) (int, string) {
	if i, err := strconv.Atoi(text); err == nil && i >= 0 && i < len(list) {
		if _, isMap := list[i].(map[string]any); isMap || !setHas(list, text) {
			return i, text
		}
	}
	if pairs := keyPairs(text); pairs != nil {
		for i, e := range list {
			em, ok := e.(map[string]any)
			if !ok {
				continue
			}
			match := true
			for _, p := range pairs {
				if diff.RenderScalar(em[p[0]]) != p[1] {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			item := node.Item(i)
			parts := make([]string, len(pairs))
			for j, p := range pairs {
				if f := item.Field(p[0]); f != nil && (f.Value || f.Any()) {
					p[1] = hidden
				}
				parts[j] = p[0] + "=" + p[1]
			}
			return i, strings.Join(parts, ",")
		}
	}
	for i, e := range list {
		if diff.RenderScalar(e) == text {
			if node.Item(i).Any() {
				return i, hidden
			}
			return i, text
		}
	}
	if node != nil && node.Value {
		return -1, hidden
	}
	return -1, text
}

func setHas(list []any, text string) bool {
	for _, e := range list {
		if diff.RenderScalar(e) == text {
			return true
		}
	}
	return false
}

// keyPairs splits "name=etcd,protocol=TCP" into its pairs; nil when text is no such list.
func keyPairs(text string) [][2]string {
	var out [][2]string
	for _, part := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(part, "=")
		switch {
		case ok && k != "" && !strings.ContainsAny(k, " :/"):
			out = append(out, [2]string{k, v})
		case len(out) > 0:
			out[len(out)-1][1] += "," + part // a comma inside a key's value
		default:
			return nil
		}
	}
	return out
}

// document decodes the packed object under key of a contents Secret.
func (m *marks) document(key string) any {
	if m.docs == nil {
		docs, err := contentsOf(&unstructured.Unstructured{Object: m.obj})
		if err != nil {
			return nil
		}
		m.docs = docs
	}
	return m.docs[key]
}

// shownRef is an object's reference as plans show it: a name or namespace that depends on a
// sensitive value with that part hidden, or whole when it cannot be told apart.
func (m *marks) shownRef(ref object.Ref) object.Ref {
	ref.Name = m.shownPart(ref.Name, "name")
	ref.Namespace = m.shownPart(ref.Namespace, "namespace")
	return ref
}

func (m *marks) shownPart(v, field string) string {
	if v == "" {
		return v
	}
	if !m.s.Path("metadata", field).Any() {
		return m.red.Redact(v) // a secret of the landscape in a name the rendering did not mark
	}
	if shown := m.redact(v); shown != v {
		return shown // only the part that depends on a sensitive value
	}
	return hidden
}

// minHiddenName is the length from which a hidden name or namespace is a secret of the whole
// landscape, so that no message quotes it; a shorter one ("a") would redact every such letter
// anywhere, and is hidden only where the plan shows the object.
const minHiddenName = 6

// hideName makes the parts of ref that shown hides secrets of the landscape.
func hideName(red *render.Redactor, ref, shown object.Ref) {
	if shown.Name != ref.Name && len(ref.Name) >= minHiddenName {
		red.Add(ref.Name)
	}
	if shown.Namespace != ref.Namespace && len(ref.Namespace) >= minHiddenName {
		red.Add(ref.Namespace)
	}
}

// SensitiveIdentity says which parts of ref differ from shown, in the form of
// SensitiveIdentityAnnotation ("name", "namespace", "name,namespace" or "").
func SensitiveIdentity(ref, shown object.Ref) string {
	var parts []string
	if ref.Name != shown.Name {
		parts = append(parts, "name")
	}
	if ref.Namespace != shown.Namespace {
		parts = append(parts, "namespace")
	}
	return strings.Join(parts, ",")
}

// hiddenIdentity is a live object's reference as plans show it, from its
// SensitiveIdentityAnnotation: for objects the landscape no longer renders.
func hiddenIdentity(ref object.Ref, live *unstructured.Unstructured) object.Ref {
	if live == nil {
		return ref
	}
	return ref.Hidden(live.GetAnnotations()[SensitiveIdentityAnnotation])
}

// RedactError is an error about writing the object (an apply or a dry-run the API server
// refused) as messages may show it. The API server's validation messages quote the values they
// refuse ("spec.replicas: Invalid value: 3: ..."); for an object that holds sensitive values
// (marked ones, a Secret's data, a secret of the landscape) they are left out, keeping the
// status, the fields and what is wrong with them (quotesValues says which reasons). Every other
// message has the landscape's secrets, the object's sensitive parts and its hidden name redacted.
// errors.Is and apierrors' reason checks work on the result as on err.
func (d *Desired) RedactError(err error) error {
	if err == nil {
		return nil
	}
	m := newMarks(d, d.redactor)
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return &redactedError{msg: m.redact(err.Error()), err: err}
	}
	st := se.Status()
	if st.Details != nil {
		details := *st.Details
		details.Causes = slices.Clone(details.Causes)
		st.Details = &details
	}
	holds := d.Sensitive.Any() || kinds.HoldsSecretDataOf(d.Object.GetAPIVersion(), d.Object.GetKind()) || d.redactor.Sensitive(d.Object.Object)
	if !holds || !quotesValues(st.Reason) {
		st.Message = m.redact(st.Message)
		if st.Details != nil {
			st.Details.Name = m.redact(st.Details.Name)
			for i, c := range st.Details.Causes {
				st.Details.Causes[i].Message, st.Details.Causes[i].Field = m.redact(c.Message), m.causeField(c.Field)
			}
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	var causes []string
	if st.Details != nil {
		st.Details.Name = d.Shown().Name
		for i, c := range st.Details.Causes {
			what := field.ErrorType(c.Type).String()
			if strings.HasPrefix(what, "<unknown") || c.Type == "" {
				what = "refused"
			}
			f := m.causeField(c.Field)
			st.Details.Causes[i].Message, st.Details.Causes[i].Field = what, f
			if f != "" {
				what = f + ": " + what
			}
			causes = append(causes, what)
		}
	}
	msg := fmt.Sprintf("the API server refused it (%s)", orReason(st.Reason, st.Code))
	if len(causes) > 0 {
		msg += ": " + strings.Join(causes, "; ")
	}
	st.Message = msg + "; the API server's message is not shown, since it may quote the object's sensitive values"
	return &apierrors.StatusError{ErrStatus: st}
}

// causeField is a cause's field (the API server's "spec.replicas", or ".spec.replicas" for a
// conflict) with its marked keys hidden, in the form it came in.
func (m *marks) causeField(f string) string {
	if f == "" {
		return f
	}
	if strings.HasPrefix(f, ".") {
		return m.path(f)
	}
	return strings.TrimPrefix(m.path("."+f), ".")
}

// quotesValues reports whether the API server's errors of a reason may quote the values of the
// object it refused: validation (Invalid, BadRequest) and admission webhooks (Forbidden by a
// webhook's denial, InternalError of a webhook) do; conflicts name field managers and fields,
// not values, and the other reasons name the object at most, whose hidden name is redacted.
// Forbidden is kept, redacted, since an authorization error without its message would not say
// which permission is missing.
func quotesValues(r metav1.StatusReason) bool {
	switch r {
	case metav1.StatusReasonConflict, metav1.StatusReasonNotFound, metav1.StatusReasonAlreadyExists, metav1.StatusReasonGone,
		metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonTimeout, metav1.StatusReasonServerTimeout,
		metav1.StatusReasonTooManyRequests, metav1.StatusReasonMethodNotAllowed, metav1.StatusReasonNotAcceptable,
		metav1.StatusReasonUnsupportedMediaType, metav1.StatusReasonServiceUnavailable:
		return false
	}
	return true
}

func orReason(reason metav1.StatusReason, code int32) string {
	if reason == "" {
		return strconv.Itoa(int(code))
	}
	return string(reason)
}

// redactedError is an error whose message had secrets replaced; it unwraps to the original for
// errors.Is (a cancelled context) and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
