// Package bounded runs a step of a test within a time and memory budget, for tests of hostile
// input: a step that overruns either is a failure, and since a Go goroutine cannot be stopped,
// one that keeps allocating would take the machine down with it, so the test binary exits at
// once instead of waiting for the step to end.
package bounded

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"
)

// Budget is what a step may take.
type Budget struct {
	// Time is how long the step may run: it overruns once both the wall time and the CPU time
	// the test process used since the step started are longer. A machine busy with other work
	// (CI runs test binaries side by side on two cores) slows the wall time of a step that is
	// fine, not its CPU time; a step that does not end overruns both.
	Time time.Duration
	// Heap is how many bytes of heap the step may add to what was in use when it started.
	Heap uint64
}

// Default is the budget of the hardening tests: a diagnostic within a second, in bounded memory.
var Default = Budget{Time: time.Second, Heap: 256 << 20}

const heapMetric = "/memory/classes/heap/objects:bytes"

func heap() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Run runs step within b and returns what it returned. A step that overruns the time or the heap
// ends the test binary with a failure message naming the test.
func Run[T any](t testing.TB, b Budget, step func() T) T {
	t.Helper()
	runtime.GC()
	base := heap()
	done := make(chan T, 1)
	start, startCPU := time.Now(), cpuTime()
	overran := func() bool {
		if time.Since(start) <= b.Time {
			return false
		}
		now := cpuTime()
		return now < 0 || startCPU < 0 || now-startCPU > b.Time // unknown CPU time: the wall time decides
	}
	go func() { done <- step() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case v := <-done:
			return v
		case <-tick.C:
			used := heap()
			switch {
			case used > base && used-base > b.Heap:
				abort(t, fmt.Sprintf("the step took more than %d MiB of heap (%d MiB after %s)", b.Heap>>20, (used-base)>>20, time.Since(start).Round(time.Millisecond)))
			case overran():
				abort(t, fmt.Sprintf("the step took more than %s (wall and CPU time)", b.Time))
			}
		}
	}
}

// cpuTime is the user and system CPU time the process has used, -1 if unknown.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func abort(t testing.TB, msg string) {
	fmt.Fprintf(os.Stderr, "--- FAIL: %s: %s; exiting, since the step cannot be stopped\n", t.Name(), msg)
	os.Exit(1)
}

// GzipBomb is a small gzip stream that decompresses to prefix, size bytes of 'a' and suffix:
// concatenated gzip members (which a gzip reader reads as one stream), each of 16 MiB that
// compresses to about 16 KiB, so a gigabyte takes about a megabyte.
func GzipBomb(prefix string, size int64, suffix string) []byte {
	var out bytes.Buffer
	member := func(data []byte) {
		zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		_, _ = zw.Write(data)
		_ = zw.Close()
	}
	member([]byte(prefix))
	const chunk = 16 << 20
	var fill bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&fill, gzip.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte("a"), chunk))
	_ = zw.Close()
	for ; size >= chunk; size -= chunk {
		out.Write(fill.Bytes())
	}
	member(bytes.Repeat([]byte("a"), int(size)))
	member([]byte(suffix))
	return out.Bytes()
}
