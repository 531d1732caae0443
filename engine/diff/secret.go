package diff

import (
	"encoding/base64"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// isSecret reports whether objects of the kind hold secret values (engine/kinds).
func isSecret(gvk schema.GroupVersionKind) bool { return kinds.HoldsSecretData(gvk.GroupKind()) }

// sensitive reports whether a changed path of a Secret holds secret values.
func sensitive(gvk schema.GroupVersionKind, p fieldPath) bool {
	return isSecret(gvk) && len(p) > 0 && p[0].kind == stepField && (p[0].name == "data" || p[0].name == "stringData")
}

// foldStringData does what the API server does when it stores a Secret: stringData entries are
// base64-encoded into data, overriding it, and stringData is never stored. The object is copied
// where it changes, never modified.
func foldStringData(obj map[string]any) map[string]any {
	sd, ok := obj["stringData"].(map[string]any)
	if !ok {
		if _, present := obj["stringData"]; !present {
			return obj
		}
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	delete(out, "stringData")
	if len(sd) == 0 {
		return out
	}
	data := map[string]any{}
	if old, ok := obj["data"].(map[string]any); ok {
		for k, v := range old {
			data[k] = v
		}
	}
	for k, v := range sd {
		s, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	out["data"] = data
	return out
}
