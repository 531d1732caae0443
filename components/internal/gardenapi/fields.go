package gardenapi

import (
	"errors"
	"fmt"
)

// MatchLabels renders a label selector that matches labels, in the shape of unstructured objects.
// An empty map is kept: in a selector it means "every object", whereas a missing one means none.
func MatchLabels(labels map[string]string) map[string]any {
	m := make(map[string]any, len(labels))
	for k, v := range labels {
		m[k] = v
	}
	return map[string]any{"matchLabels": m}
}

// Toleration is a seed taint that shoots tolerate (Gardener's Toleration in
// docs/api-reference/core.md); Value "" tolerates any value. Components whose configuration has no
// more to a toleration use it as their own type.
type Toleration struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Tolerations renders tolerations in the order given as the API's list of key and optional value;
// a toleration without a key, or one given twice, is an error, as gardener-apiserver would refuse
// it only after apply.
func Tolerations(ts []Toleration) ([]any, error) {
	out := make([]any, 0, len(ts))
	seen := map[Toleration]bool{}
	for _, t := range ts {
		if t.Key == "" {
			return nil, errors.New("toleration without a key")
		}
		if seen[t] {
			return nil, fmt.Errorf("toleration %s=%s is given twice", t.Key, t.Value)
		}
		seen[t] = true
		m := map[string]any{"key": t.Key}
		if t.Value != "" {
			m["value"] = t.Value
		}
		out = append(out, m)
	}
	return out, nil
}

// Ref names a namespaced object, such as a Quota; Namespace "" means the referring object's.
// The bindings use it as the type of their quota references.
type Ref struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// QuotaRefs renders the quota references of a binding in namespace ns as ObjectReferences with
// name and namespace, or nil for none; a reference without a name, or one given twice, is an
// error.
func QuotaRefs(refs []Ref, ns string) ([]any, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]any, 0, len(refs))
	seen := map[Ref]bool{}
	for _, q := range refs {
		if q.Name == "" {
			return nil, fmt.Errorf("quota reference without a name")
		}
		if q.Namespace == "" {
			q.Namespace = ns
		}
		if seen[q] {
			return nil, fmt.Errorf("quota %s/%s is referenced twice", q.Namespace, q.Name)
		}
		seen[q] = true
		out = append(out, map[string]any{"name": q.Name, "namespace": q.Namespace})
	}
	return out, nil
}
