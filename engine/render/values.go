package render

import (
	"encoding/base64"
	"encoding/json"
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
			for _, form := range encodings(s) {
				if !seen[form] {
					seen[form] = true
					p.Secrets = append(p.Secrets, form)
				}
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

// encodings returns a secret and the forms it commonly takes inside rendered objects: base64 (a
// Secret's data, kubeconfigs) and JSON-escaped (embedded in JSON documents). A secret in any other
// encoding is not recognised; components put secrets into Secret objects, whose data is never
// shown.
func encodings(s string) []string {
	out := []string{s, base64.StdEncoding.EncodeToString([]byte(s))}
	if b, err := json.Marshal(s); err == nil {
		if q := string(b[1 : len(b)-1]); q != s {
			out = append(out, q)
		}
	}
	return out
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

// Redact replaces every secret in a message, longest first so that a secret containing another
// is replaced whole.
func (r *Redactor) Redact(msg string) string {
	if r == nil {
		return msg
	}
	secrets := append([]string(nil), r.secrets...)
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "(sensitive value)")
	}
	return msg
}

// Unknown reports whether a value holds something known only after apply: a value no component
// provides before apply (UnknownString) or a LiveValue marker.
func Unknown(v any) bool { return Unprovided(v) || HasLive(v) }

// Unprovided reports whether a value holds UnknownString: a value that the engine cannot learn
// at apply either, because it comes from an output no render function sets.
func Unprovided(v any) bool { return containsString(v, UnknownString) }
