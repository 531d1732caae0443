package graph

import "fmt"

// didYouMean suggests the candidate closest to given when it is close enough to be a typo: at
// most one edit per three characters.
func didYouMean(given string, candidates []string) string {
	if best := suggest(given, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %s?", best)
	}
	return ""
}

// suggest returns the candidate closest to given, or "" when none is within one edit per three
// characters.
func suggest(given string, candidates []string) string {
	best, bestDist := "", max(1, len([]rune(given))/3)+1
	for _, c := range candidates {
		if d := levenshtein([]rune(given), []rune(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// levenshtein counts the insertions, deletions and substitutions turning a into b, keeping one
// row of the distance table.
func levenshtein(a, b []rune) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(b)]
}
