//go:build unix

package landscapefs

import "syscall"

// nonBlocking opens a file without waiting for a writer, should it be a FIFO.
const nonBlocking = syscall.O_NONBLOCK
