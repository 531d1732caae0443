// Package yamlkeys orders the keys of YAML mappings as go.yaml.in/yaml/v2 does (what
// sigs.k8s.io/yaml writes, and Gardener's ManagedResource Secrets hold), but the same way on
// every run.
//
// go-yaml v2 sorts a mapping's keys "naturally": character by character, letters after other
// characters, and runs of digits by their value. For keys that mix digits and letters, such as
// the hashes in Gardener's reference annotation keys ("secret-3055c21f", "secret-3ddd1800",
// "secret-389fbba5"), that comparison is no total order (those three compare in a circle), and
// go-yaml applies it to a Go map's keys in the map's random order, so that such a mapping comes
// out differently from run to run. Sort orders keys as strings first and then stably by go-yaml's
// comparison: where that comparison is a total order on the keys the result is go-yaml's order,
// byte for byte; where it is not, it is one order, always the same.
package yamlkeys

import (
	"cmp"
	"fmt"
	"slices"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Less is go-yaml v2's comparison of two string keys (go.yaml.in/yaml/v2, sorter.go): at the
// first rune that differs, a letter sorts after anything else and two letters by code point;
// otherwise the runs of digits starting there compare by their value (a zero continues the
// number of the digits before it), then the shorter run first, then by code point. A key that is
// a prefix of the other sorts first.
func Less(a, b string) bool {
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

// Compare orders two keys for a stable sort that follows byte order: -1 or 1 where Less says
// so, else 0.
func Compare(a, b string) int {
	switch {
	case Less(a, b):
		return -1
	case Less(b, a):
		return 1
	}
	return 0
}

// SortStrings sorts keys as Sort orders a mapping's keys.
func SortStrings(keys []string) {
	slices.Sort(keys)
	slices.SortStableFunc(keys, Compare)
}

// Sort orders the keys of every mapping in a document decoded into MapSlices (go-yaml v2
// decodes the mappings nested in a MapSlice as MapSlices too), in place.
func Sort(v any) {
	switch t := v.(type) {
	case yamlv2.MapSlice:
		key := func(i yamlv2.MapItem) string { return fmt.Sprint(i.Key) }
		slices.SortStableFunc(t, func(a, b yamlv2.MapItem) int { return cmp.Compare(key(a), key(b)) })
		slices.SortStableFunc(t, func(a, b yamlv2.MapItem) int { return Compare(key(a), key(b)) })
		for _, item := range t {
			Sort(item.Value)
		}
	case []any:
		for _, e := range t {
			Sort(e)
		}
	}
}
