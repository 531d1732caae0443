package graph

import (
	"fmt"

	"github.com/declarative-gardener/gardener/engine/diag"
)

// suggestion is ` Did you mean x?` for the candidate closest to given (diag.Closest), unquoted
// because the candidates are addresses, which carry quotes of their own.
func suggestion(given string, candidates []string) string {
	if best := diag.Closest(given, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %s?", best)
	}
	return ""
}
