// Command gardener plans and applies Gardener landscapes declared in HCL. This package only wires
// the command line to the engine and the component registry.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand(os.Stdout, os.Stderr).Execute(); err != nil {
		var code exitCode
		if errors.As(err, &code) {
			os.Exit(int(code))
		}
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
