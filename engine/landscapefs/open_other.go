//go:build !unix

package landscapefs

// nonBlocking is no flag where there are no FIFOs to wait for.
const nonBlocking = 0
