// Package expect reads the expect.txt files of test corpora: each case of a corpus directory
// lists the lines it must produce (diagnostics as FILE:LINE:COL: summary, say), one per line.
package expect

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Lines reads an expect.txt: one expected line per line, blank lines and # comments left out,
// sorted, so that a case lists its expectations in any order.
func Lines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "every case has an expect.txt")
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	sort.Strings(lines)
	return lines
}
