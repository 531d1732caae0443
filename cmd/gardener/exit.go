package main

import (
	"io"
	"os"
	"strconv"
)

// exitCode ends the command with the given status after the command has already said why (as
// diagnostics, a list of files, ...); main prints nothing more for it.
type exitCode int

func (e exitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// useColor reports whether w is a terminal that wants colour: not when NO_COLOR is set, and never
// for pipes or files.
func useColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
