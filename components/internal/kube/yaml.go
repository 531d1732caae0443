package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
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
// Either way the keys of a mapping come out in go-yaml v2's order, which compares runs of digits
// in keys as numbers. That comparison is no total order ("secret-3055c21f", "secret-3ddd1800" and
// "secret-389fbba5", as in Gardener's reference annotations, compare in a circle), and go-yaml
// sorts a Go map's keys from the map's random iteration order, so such keys came out in a
// different order from run to run: a ManagedResource's Secret, named after its content, would be
// renamed by a plan that changes nothing. YAML therefore orders the keys of every mapping that
// has two keys with digits itself: in byte order first, then by go-yaml's comparison with a
// stable sort. For keys that go-yaml's comparison orders totally that is go-yaml's order, so the
// bytes are sigs.k8s.io/yaml's; for the others it is one order, always the same.
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
	sortSlices(doc)
	return yamlv2.Marshal(doc)
}

// sortSlices orders every mapping of a document parsed into MapSlices (go-yaml v2 parses the
// mappings nested in a MapSlice as MapSlices too) as YAML orders keys.
func sortSlices(v any) {
	switch t := v.(type) {
	case yamlv2.MapSlice:
		slices.SortStableFunc(t, func(a, b yamlv2.MapItem) int { return compareKeys(a.Key, b.Key) })
		for _, item := range t {
			sortSlices(item.Value)
		}
	case []any:
		for _, e := range t {
			sortSlices(e)
		}
	}
}

// compareKeys orders two keys of a parsed mapping as go-yaml v2 does where both are strings
// (JSON's keys always are), else leaves them in their order.
func compareKeys(a, b any) int {
	as, aok := a.(string)
	bs, bok := b.(string)
	switch {
	case !aok || !bok:
		return 0
	case yamlKeyLess(as, bs):
		return -1
	case yamlKeyLess(bs, as):
		return 1
	}
	return 0
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
		keys := slices.Sorted(maps.Keys(m))
		slices.SortStableFunc(keys, func(a, b string) int { return compareKeys(a, b) })
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

// yamlKeyLess is go-yaml v2's comparison of two string keys (go.yaml.in/yaml/v2, sorter.go): at
// the first rune that differs, a letter sorts after anything else, two letters by code point,
// and otherwise the runs of digits starting there compare as numbers (a zero continues the
// number of the digits before it), then the shorter run first, then by code point; a key that
// is a prefix of the other sorts first.
func yamlKeyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al, bl := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ai, bi := i, i
		for ; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for ; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
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
