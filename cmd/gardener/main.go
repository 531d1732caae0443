// Command gardener plans and applies Gardener landscapes declared in HCL. This package only wires
// the command line to the engine and the component registry.
package main

import (
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/secrets"
)

// profileEnv names a file to write a CPU profile of the whole run to (go tool pprof reads it):
// how docs/performance.md finds where time goes.
const profileEnv = "GARDENER_CPUPROFILE"

// memProfileEnv names a file to keep a heap profile of the run's largest heap in (go tool pprof
// -sample_index=inuse_space reads what it held): how docs/performance.md finds what a run holds.
const memProfileEnv = "GARDENER_MEMPROFILE"

// commandGCPercent is the garbage collector's target for one-shot commands (plan, apply,
// render), unless GOGC says otherwise. A plan holds the rendered and the observed landscape at
// once and allocates much while decoding LISTs; collecting when the heap has grown by twice the
// live heap rather than once takes about a tenth off a no-op plan for about a tenth more peak
// memory (4x gains little more and costs a third more memory). The daemon, which lives long
// beside other pods, keeps Go's default.
const commandGCPercent = 200

func main() {
	stop, err := startProfile(os.Getenv(profileEnv))
	if err != nil {
		printf(os.Stderr, "Error: %s: %v\n", profileEnv, err)
		os.Exit(1)
	}
	stopHeap := startHeapProfile(os.Getenv(memProfileEnv))
	secrets.PrefetchKeys()
	rest.SetDefaultWarningHandler(warningPrinter{w: os.Stderr})
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(commandGCPercent)
	}
	err = newRootCommand(os.Stdout, os.Stderr).Execute()
	stop()
	if perr := stopHeap(); perr != nil {
		printf(os.Stderr, "Error: %s: %v\n", memProfileEnv, perr)
	}
	if status := exitStatus(os.Stderr, err); status != 0 {
		os.Exit(status)
	}
}

// exitStatus returns the process's exit status for the error a command ended with, and prints
// the error unless the command has already said why (an exitCode).
func exitStatus(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	printLine(stderr, "Error:", err)
	return 1
}

// startProfile starts a CPU profile into path, unless path is empty; stop ends it.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// startHeapProfile keeps a heap profile in path, unless path is empty: whenever the heap live
// after a garbage collection has grown by a fifth past the largest seen, it collects garbage
// once more and writes the profile (the runtime publishes a collection's figures only at the
// next), so that the file shows what the run held at its largest and what it had allocated
// until then. The extra collections cost time: measure time without it. A run too short to
// collect garbage gets its profile when stop is called.
func startHeapProfile(path string) (stop func() error) {
	if path == "" {
		return func() error { return nil }
	}
	done, finished := make(chan struct{}), make(chan error, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		var err error
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if peak == 0 {
					err = writeHeapProfile(path)
				}
				finished <- err
				return
			case <-tick.C:
				metrics.Read(sample)
				if live := sample[0].Value.Uint64(); live > peak+peak/5 {
					peak = live
					runtime.GC()
					if werr := writeHeapProfile(path); err == nil {
						err = werr
					}
				}
			}
		}
	}()
	return func() error {
		close(done)
		return <-finished
	}
}

// writeHeapProfile writes the heap profile into path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
