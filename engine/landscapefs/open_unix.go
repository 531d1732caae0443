//go:build unix

package landscapefs

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting for a writer, should it be a FIFO.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
