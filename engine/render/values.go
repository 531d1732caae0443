package render

import (
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Prepared is an instance's configuration made ready for a render function.
type Prepared struct {
	// Config has no marks; unknown strings are UnknownString.
	Config cty.Value
	// Deferred lists the paths of unknown values other than strings. Such an instance cannot be
	// rendered before apply; the plan says it will be rendered then.
	Deferred []cty.Path
	// Secrets are the sensitive strings of the configuration. Any rendered field containing one
	// is shown as "(sensitive value)".
	Secrets []string
}

// Prepare strips marks from a configuration, collecting sensitive strings, and replaces unknown
// strings with UnknownString.
func Prepare(config cty.Value, sensitiveMark any) Prepared {
	var p Prepared
	unmarked, pvms := config.UnmarkDeepWithPaths()
	seen := map[string]bool{}
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[sensitiveMark]; !ok {
			continue
		}
		v, err := pvm.Path.Apply(unmarked)
		if err != nil {
			continue
		}
		for _, s := range stringsIn(v) {
			if !seen[s] {
				seen[s] = true
				p.Secrets = append(p.Secrets, s)
			}
		}
	}
	sort.Strings(p.Secrets)
	p.Config, _ = cty.Transform(unmarked, func(path cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if v.Type() == cty.String {
			return cty.StringVal(UnknownString), nil
		}
		p.Deferred = append(p.Deferred, path.Copy())
		return v, nil
	})
	return p
}

// stringsIn returns every non-empty known string inside v.
func stringsIn(v cty.Value) []string {
	var out []string
	_ = cty.Walk(v, func(_ cty.Path, v cty.Value) (bool, error) {
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.String && v.AsString() != "" {
			out = append(out, v.AsString())
		}
		return true, nil
	})
	return out
}

// Redactor decides how a rendered value is shown: secrets are never shown, and markers of
// values known only after apply are shown as such.
type Redactor struct {
	secrets []string
}

// NewRedactor returns a redactor for the given sensitive strings.
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{secrets: append([]string(nil), secrets...)}
	sort.Strings(r.secrets)
	return r
}

// Add adds further sensitive strings.
func (r *Redactor) Add(secrets ...string) {
	r.secrets = append(r.secrets, secrets...)
	sort.Strings(r.secrets)
}

// Sensitive reports whether a value contains a secret, anywhere inside it.
func (r *Redactor) Sensitive(v any) bool {
	if r == nil || len(r.secrets) == 0 {
		return false
	}
	switch v := v.(type) {
	case string:
		for _, s := range r.secrets {
			if strings.Contains(v, s) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if r.Sensitive(k) || r.Sensitive(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if r.Sensitive(e) {
				return true
			}
		}
	}
	return false
}

// Unknown reports whether a value holds something known only after apply.
func Unknown(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, UnknownString)
	case map[string]any:
		for _, e := range v {
			if Unknown(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if Unknown(e) {
				return true
			}
		}
	}
	return false
}
