package rendering

import (
	"encoding/base64"
	"encoding/json"
	"sort"

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
	// Secrets are the sensitive strings of the configuration. Any rendered field containing one
	// is shown as "(sensitive value)".
	Secrets []string
}

// prepare strips marks from a configuration, collecting sensitive strings, and replaces unknown
// strings with render.UnknownString.
func prepare(config cty.Value, sensitiveMark any) prepared {
	var p prepared
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
			return cty.StringVal(render.UnknownString), nil
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
