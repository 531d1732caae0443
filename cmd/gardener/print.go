package main

import (
	"fmt"
	"io"

	"github.com/declarative-gardener/gardener/internal/termsafe"
)

// Everything this package prints for people goes through printf and printLine, which escape the
// whole message (termsafe.Text: control characters, bidi overrides and bytes that are not UTF-8
// are shown as escapes; line breaks and tabs stay, as the message's layout). Its messages quote
// what others wrote: errors of API servers and webhooks, lock holders, addresses and outputs
// from a state, file names, the daemon's status fields; none of them may control the terminal.
// The plan and progress views (engine/views) and diagnostics (engine/diag) escape their data
// themselves, since they colour their own text. TestPrintingGoesThroughTermsafe keeps the rest of
// the package from calling fmt's printing functions.
//
// Not escaped: JSON (encoding/json escapes every control character), the Markdown and JSON of the
// built-in schemas, and what `fmt -` writes, the formatted file itself, for editors and pipes.

// printf writes a formatted message to w, escaped.
func printf(w io.Writer, format string, args ...any) {
	_, _ = io.WriteString(w, termsafe.Text(fmt.Sprintf(format, args...)))
}

// printLine writes its arguments as fmt.Println does, escaped.
func printLine(w io.Writer, args ...any) {
	_, _ = io.WriteString(w, termsafe.Text(fmt.Sprintln(args...)))
}

// warningPrinter prints the warnings API servers send (the Warning header: deprecated APIs,
// webhooks' admission warnings) escaped, in place of client-go's default, which logs them
// unescaped through klog: their text is the server's and its webhooks' to choose.
type warningPrinter struct{ w io.Writer }

// HandleWarningHeader implements rest.WarningHandler.
func (p warningPrinter) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return // only 299 warnings are meant for people (RFC 7234 and client-go's own handlers)
	}
	printf(p.w, "Warning: %s\n", termsafe.Escape(text))
}
