// Package termsafe makes text from outside the program safe to print on a terminal.
//
// Much of what gardener prints was written by someone else: names, labels and values of live
// objects, messages of API servers and webhooks, the holder of a state lock, the lines of a
// landscape file under review. A terminal obeys control characters wherever they come from, so
// an object named "\x1b[2J" would clear the screen in the middle of a plan, "\r" or a cursor
// movement would overwrite the lines above with a forged plan, an OSC sequence ("\x1b]0;...\a")
// would retitle the window or, on some terminals, write the clipboard, and a bidi override
// (U+202E) would reorder what a reviewer reads. Everything gardener prints for people goes
// through the one rule of this package (escape), so that such characters are shown, never
// obeyed: the views escape the data they format and keep the colours they add themselves, and
// the commands escape their messages.
//
// The rule keeps graphic characters (letters, marks, numbers, punctuation, symbols and spaces of
// every script), so that names in any language stay readable, and the zero-width joiner and
// non-joiner that some scripts need. Everything else is shown as a Go escape: "\x1b" for ESC,
// "\r", "\a", "\u202e" for a right-to-left override, "\u0085" for a C1 control, "\xff" for a
// byte that is not UTF-8. A backslash is not escaped: the result is for people to read, not to
// be parsed back. JSON output needs none of this: encoding/json escapes every C0 control.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s as one line for a terminal: every character that could control the terminal,
// line breaks and tabs included, is shown as an escape. Use it for names, addresses, reasons and
// any other field that the surrounding layout expects on one line.
func Escape(s string) string {
	return escape(s, false)
}

// Text returns s for a terminal like Escape but keeps its newlines and tabs: for messages of
// several lines (errors, diagnostics' details, source lines, status fields) whose line breaks
// are their layout.
func Text(s string) string {
	return escape(s, true)
}

// escape is the one rule; layout keeps "\n" and "\t".
func escape(s string, layout bool) string {
	i := firstUnsafe(s, layout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keep(r, layout):
			b.WriteString(s[i : i+size])
		default:
			writeEscape(&b, r)
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte that needs a look beyond printable ASCII, or
// -1: most text is printable ASCII and is returned as it is, without an allocation.
func firstUnsafe(s string, layout bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if layout && (c == '\n' || c == '\t') {
			continue
		}
		return i
	}
	return -1
}

// keep reports whether r is printed as it is.
func keep(r rune, layout bool) bool {
	switch r {
	case '\n', '\t':
		return layout
	case '\u200c', '\u200d': // zero-width non-joiner and joiner: part of how some scripts are written
		return true
	}
	// Graphic: letters, marks, numbers, punctuation, symbols and spaces (Zs). Not graphic: C0
	// and C1 controls, DEL, format characters (bidi overrides and isolates, zero-width space,
	// byte order mark), line and paragraph separators, private use and unassigned code points.
	return unicode.IsGraphic(r)
}

// writeEscape writes r as Go writes it in a quoted string.
func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		switch {
		case r < utf8.RuneSelf:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
}
