package config

import "github.com/declarative-gardener/gardener/engine/diag"

// didYouMean returns ` Did you mean "x"?` for the candidate closest to given, or "" when none is
// close enough to be a plausible typo (diag.DidYouMean).
func didYouMean(given string, candidates []string) string {
	return diag.DidYouMean(given, candidates)
}

// editDistance is diag.EditDistance: the optimal string alignment distance between a and b.
func editDistance(a, b string) int { return diag.EditDistance(a, b) }
