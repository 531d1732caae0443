package config

import "fmt"

// didYouMean returns ` Did you mean "x"?` for the candidate closest to given, or "" when none is
// close enough to be a plausible typo.
func didYouMean(given string, candidates []string) string {
	best, bestDist := "", len(given)/2+2
	for _, c := range candidates {
		if d := levenshtein(given, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || best == given {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

// levenshtein is the edit distance between a and b, counted in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
