package kube

import (
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// YAML is the YAML sigs.k8s.io/yaml.Marshal writes for an object (what Kubernetes tooling and
// Gardener's ManagedResource Secrets hold), without its detour through JSON where the detour
// cannot change anything. sigs.k8s.io/yaml encodes the object as JSON, parses that JSON as YAML
// with go-yaml v2 and writes the result with go-yaml v2: at a fleet's size, that parse was half
// of everything a full plan allocated (a shoot's system components are packed into
// ManagedResources object by object). For an object made of maps with string keys, lists,
// strings, booleans, integers and nulls only, whose strings are printable ASCII or escaped by
// JSON (control characters), the detour yields the same value again (go-yaml reads JSON
// integers back as integers and quoted strings as strings) and go-yaml v2 writes it the same way
// (it sorts map keys either way), so YAML writes the object with go-yaml v2 directly. Any other
// object (floating-point numbers, which the detour may turn into integers, other Go types,
// non-ASCII text, which go-yaml's reader judges by its own rules, very long keys) takes the
// detour.
func YAML(obj map[string]any) ([]byte, error) {
	if !plainJSON(obj) {
		return yaml.Marshal(obj)
	}
	return yamlv2.Marshal(obj)
}

// plainJSON reports whether v holds only what JSON and YAML read back unchanged (YAML).
func plainJSON(v any) bool {
	switch t := v.(type) {
	case nil, bool, int64, int, int32:
		return true
	case string:
		return plainText(t)
	case map[string]any:
		for k, e := range t {
			// go-yaml reads a key of JSON's flow mappings as a simple key, which YAML bounds
			// at 1,024 characters.
			if len(k) > maxPlainKey || !plainText(k) || !plainJSON(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range t {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

// maxPlainKey is the longest map key YAML writes directly, well below YAML's bound on simple
// keys (1,024 characters, JSON's escapes and quotes included).
const maxPlainKey = 512

// plainText reports whether s is ASCII without DEL: printable characters, and control
// characters, which JSON escapes and YAML's double-quoted scalars unescape.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x7f {
			return false
		}
	}
	return true
}
