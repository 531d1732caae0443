package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"

	"github.com/declarative-gardener/gardener/internal/yamlkeys"
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
//
// Either way the keys of a mapping are ordered by yamlkeys: go-yaml v2's order, but the same on
// every run also where that order is not total (hashes such as Gardener's reference annotation
// keys); a ManagedResource's Secret, named after its content, would otherwise be renamed by a
// plan that changes nothing. A mapping with at most one key with digits is left to go-yaml.
func YAML(obj map[string]any) ([]byte, error) {
	if !plainJSON(obj) {
		return detourYAML(obj)
	}
	if ordered, changed := orderKeys(obj); changed {
		return yamlv2.Marshal(ordered)
	}
	return yamlv2.Marshal(obj)
}

// detourYAML is sigs.k8s.io/yaml.Marshal (JSON, parsed by go-yaml v2, written by go-yaml v2) with
// the mappings parsed in JSON's key order (byte order) and ordered as YAML orders them.
func detourYAML(obj map[string]any) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("error marshaling into JSON: %w", err)
	}
	var doc yamlv2.MapSlice
	if err := yamlv2.Unmarshal(j, &doc); err != nil {
		return nil, fmt.Errorf("error converting JSON to YAML: %w", err)
	}
	yamlkeys.Sort(doc)
	return yamlv2.Marshal(doc)
}

// orderKeys returns obj with every mapping that has two keys with digits replaced by a MapSlice
// in YAML's order, and whether it replaced any; the maps on the way to one are copied, obj is
// left as it is. A mapping with at most one key with digits needs no help: without digits to
// compare as numbers, go-yaml's comparison orders keys by their characters (any other character
// before letters), a total order.
func orderKeys(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		var replaced map[string]any
		for k, e := range t {
			if o, changed := orderKeys(e); changed {
				if replaced == nil {
					replaced = maps.Clone(t)
				}
				replaced[k] = o
			}
		}
		m := t
		if replaced != nil {
			m = replaced
		}
		if !digitsInTwoKeys(m) {
			return m, replaced != nil
		}
		keys := slices.Collect(maps.Keys(m))
		yamlkeys.SortStrings(keys)
		ordered := make(yamlv2.MapSlice, len(keys))
		for i, k := range keys {
			ordered[i] = yamlv2.MapItem{Key: k, Value: m[k]}
		}
		return ordered, true
	case []any:
		var replaced []any
		for i, e := range t {
			if o, changed := orderKeys(e); changed {
				if replaced == nil {
					replaced = slices.Clone(t)
				}
				replaced[i] = o
			}
		}
		if replaced != nil {
			return replaced, true
		}
	}
	return v, false
}

// digitsInTwoKeys reports whether at least two keys of m have a digit.
func digitsInTwoKeys(m map[string]any) bool {
	n := 0
	for k := range m {
		if strings.ContainsAny(k, "0123456789") {
			if n++; n == 2 {
				return true
			}
		}
	}
	return false
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
