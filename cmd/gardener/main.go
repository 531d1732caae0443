// Command gardener plans and applies Gardener landscapes declared in HCL. This package only wires
// the command line to the engine and the component registry.
package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/secrets"
)

// profileEnv names a file to write a CPU profile of the whole run to (go tool pprof reads it):
// how docs/performance.md finds where time goes.
const profileEnv = "GARDENER_CPUPROFILE"

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
	secrets.PrefetchKeys()
	rest.SetDefaultWarningHandler(warningPrinter{w: os.Stderr})
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(commandGCPercent)
	}
	err = newRootCommand(os.Stdout, os.Stderr).Execute()
	stop()
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
