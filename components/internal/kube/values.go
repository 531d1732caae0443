package kube

// AnyList turns strings into the []any that unstructured objects hold, so that rendered custom
// resources carry lists the diff and the JSON encoder treat like decoded ones.
func AnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// AnyMap turns a map into the map[string]any that unstructured objects and JSON-shaped values
// hold.
func AnyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
