//go:build !unix

package landscapefs

import "os"

// openNonBlocking opens path for reading; systems without FIFOs need no flag for it.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
