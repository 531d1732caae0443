package diag

import "fmt"

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

// EditDistance is the optimal string alignment distance between a and b in runes: insertions,
// deletions, substitutions and transpositions of adjacent runes each cost one.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
