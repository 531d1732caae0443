package main

import "strconv"

// exitCode ends the command with the given status after the command has already said why (as
// diagnostics, a list of files, ...); main prints nothing more for it.
type exitCode int

func (e exitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }
