package rendering

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/render"
)

// prepared is an instance's configuration made ready for a render function.
type prepared struct {
	// Config has no marks; unknown strings are render.UnknownString.
	Config cty.Value
	// Deferred lists the paths of unknown values other than strings. Such an instance cannot be
	// rendered before apply; the plan says it will be rendered then.
	Deferred []cty.Path
	// Secrets are the sensitive strings of the configuration, and the sensitive numbers as they
	// print, in the forms they commonly take. Any rendered field containing one is shown as
	// "(sensitive value)".
	Secrets []string
	// Marked are the paths of the sensitive values, which trace.go replaces to find what the
	// rendering makes of them.
	Marked []cty.Path
}

// minNumberDigits is the length from which a sensitive number, as it prints, is a secret that
// every message is redacted of; a shorter one would redact every such digit anywhere. Plans hide
// sensitive numbers of any length by their place (trace.go).
const minNumberDigits = 4

// prepare strips marks from a configuration, collecting sensitive strings, and replaces unknown
// strings with render.UnknownString.
func prepare(config cty.Value, sensitiveMark any) prepared {
	var p prepared
	unmarked, pvms := config.UnmarkDeepWithPaths()
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[sensitiveMark]; !ok {
			continue
		}
		p.Marked = append(p.Marked, pvm.Path.Copy())
		v, err := pvm.Path.Apply(unmarked)
		if err != nil {
			continue
		}
		for _, s := range stringsIn(v) {
			p.Secrets = appendNew(p.Secrets, encodings(s)...)
		}
		for _, n := range numbersIn(v) {
			if len(strings.TrimPrefix(n, "-")) >= minNumberDigits {
				p.Secrets = appendNew(p.Secrets, n, strings.TrimPrefix(n, "-"))
			}
		}
	}
	sort.Strings(p.Secrets)
	p.Config, _ = cty.Transform(unmarked, func(path cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if v.Type() == cty.String {
			return cty.StringVal(render.UnknownString), nil
		}
		p.Deferred = append(p.Deferred, path.Copy())
		return v, nil
	})
	return p
}

// appendNew appends the strings list does not hold yet.
func appendNew(list []string, strs ...string) []string {
	have := make(map[string]bool, len(list))
	for _, s := range list {
		have[s] = true
	}
	for _, s := range strs {
		if !have[s] {
			have[s] = true
			list = append(list, s)
		}
	}
	return list
}

// encodings returns a secret and the forms it commonly takes inside rendered objects and
// messages: base64 (a Secret's data, kubeconfigs; standard and URL alphabets, padded or not),
// hex, URL-encoded (query and path), JSON-escaped (with and without HTML escapes) and Go-quoted.
// A secret transformed otherwise is found by its place (trace.go) where a render function
// transforms it; components put secrets into Secret objects, whose data is never shown.
func encodings(s string) []string {
	b := []byte(s)
	out := []string{s,
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
		url.QueryEscape(s), url.PathEscape(s),
	}
	if q := strconv.Quote(s); len(q) >= 2 {
		out = append(out, q[1:len(q)-1])
	}
	if j, err := json.Marshal(s); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	var plain strings.Builder
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		j := strings.TrimSuffix(plain.String(), "\n")
		out = append(out, j[1:len(j)-1])
	}
	return appendNew(nil, out...)
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

// numbersIn returns every known number inside v as it prints.
func numbersIn(v cty.Value) []string {
	var out []string
	_ = cty.Walk(v, func(_ cty.Path, v cty.Value) (bool, error) {
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
			out = append(out, v.AsBigFloat().Text('f', -1))
		}
		return true, nil
	})
	return out
}
