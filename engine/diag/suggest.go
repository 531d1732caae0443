package diag

import (
	"fmt"

	"github.com/agext/levenshtein"
)

// DidYouMean returns ` Did you mean "x"?` for the candidate closest to given, or "" when none is
// close enough to be a plausible typo (Closest). Diagnostics append it to their detail.
func DidYouMean(given string, candidates []string) string {
	if best := Closest(given, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %q?", best)
	}
	return ""
}

// Closest returns the candidate closest to given when it is close enough to be a plausible typo:
// at most one edit per three characters (at least one), a swap of neighbouring characters
// counting as one edit; "" when none is, or when given is itself a candidate.
func Closest(given string, candidates []string) string {
	limit := max(1, len([]rune(given))/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := EditDistance(given, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == given {
		return ""
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b in runes (insertions, deletions and
// substitutions each cost one), except that two strings that differ only by one swap of
// neighbouring runes ("thnig", "thing"), the commonest typo, are one edit apart.
//
// The distance is agext/levenshtein's, the implementation HCL's own suggestions use. Its MaxCost
// shortcut is not used: in v1.2.1 it returns distances below the limit that are too small
// ("helm_chart" and "namespace", 8 apart, come out 3 apart with MaxCost 4).
func EditDistance(a, b string) int {
	if oneSwapApart([]rune(a), []rune(b)) {
		return 1
	}
	return levenshtein.Distance(a, b, nil)
}

// oneSwapApart reports whether a and b differ only by one swap of neighbouring runes.
func oneSwapApart(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:])
}
