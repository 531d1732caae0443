package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServerWarningsAreEscaped: a warning an API server or its webhook sends cannot control the
// terminal; only 299 warnings, the ones meant for people, are printed.
func TestServerWarningsAreEscaped(t *testing.T) {
	var out bytes.Buffer
	p := warningPrinter{w: &out}
	p.HandleWarningHeader(299, "-", "policy \u202eevil\x1b[2J\nnext")
	p.HandleWarningHeader(199, "-", "misc")
	p.HandleWarningHeader(299, "-", "")
	assert.Equal(t, "Warning: policy \\u202eevil\\x1b[2J\\nnext\n", out.String())
}
