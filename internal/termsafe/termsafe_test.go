package termsafe

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, one, text string
	}{
		{"printable ASCII stays", `shoot.dev["a"] -> kube-system/coredns (runtime)`, `shoot.dev["a"] -> kube-system/coredns (runtime)`, `shoot.dev["a"] -> kube-system/coredns (runtime)`},
		{"empty", "", "", ""},
		{"names in other scripts stay readable", "Grüße ÄÖÜ 日本語　名前 ελληνικά עברית العربية 😀", "Grüße ÄÖÜ 日本語　名前 ελληνικά עברית العربية 😀", "Grüße ÄÖÜ 日本語　名前 ελληνικά עברית العربية 😀"},
		{"combining marks and joiners stay", "e\u0301 \U0001F468\u200d\U0001F469 می\u200cخواهم", "e\u0301 \U0001F468\u200d\U0001F469 می\u200cخواهم", "e\u0301 \U0001F468\u200d\U0001F469 می\u200cخواهم"},
		{"clear screen", "evil\x1b[2J\x1b[H", `evil\x1b[2J\x1b[H`, `evil\x1b[2J\x1b[H`},
		{"colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"OSC window title ended by BEL", "\x1b]0;owned\a", `\x1b]0;owned\a`, `\x1b]0;owned\a`},
		{"OSC 52 clipboard ended by ST", "\x1b]52;c;ZWNobw==\x1b\\", `\x1b]52;c;ZWNobw==\x1b\`, `\x1b]52;c;ZWNobw==\x1b\`},
		{"carriage return overwrites the line", "ok\rforged", `ok\rforged`, `ok\rforged`},
		{"line breaks and tabs", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"other C0 controls", "\x00\b\f\v\x7f", `\x00\b\f\v\x7f`, `\x00\b\f\v\x7f`},
		{"C1 controls (CSI, NEL) as UTF-8", "\u009b2J\u0085", `\u009b2J\u0085`, `\u009b2J\u0085`},
		{"bidi override and isolates", "abc\u202edcba\u2066x\u2069\u200f", `abc\u202edcba\u2066x\u2069\u200f`, `abc\u202edcba\u2066x\u2069\u200f`},
		{"invisible format characters", "kube-system\u200b\ufeff", `kube-system\u200b\ufeff`, `kube-system\u200b\ufeff`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"private use and unassigned", "\ue000\U000e0001", `\ue000\U000e0001`, `\ue000\U000e0001`},
		{"bytes that are not UTF-8", "a\xffb\xc2", `a\xffb\xc2`, `a\xffb\xc2`},
		{"a raw C1 CSI byte", "\x9b2J", `\x9b2J`, `\x9b2J`},
		{"the replacement character itself stays", "\ufffd", "\ufffd", "\ufffd"},
		{"backslashes are not escaped", `C:\dir \x1b`, `C:\dir \x1b`, `C:\dir \x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.one, Escape(tt.in), "Escape")
			assert.Equal(t, tt.text, Text(tt.in), "Text")
			assert.Equal(t, tt.one, Escape(Escape(tt.in)), "escaping twice changes nothing more")
			assert.Equal(t, tt.text, Text(Text(tt.in)), "escaping twice changes nothing more")
		})
	}
}

// FuzzEscape checks the promise for any input: valid UTF-8 out, no character a terminal obeys
// (but the newlines and tabs Text keeps), and printable ASCII unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "\x1b]0;t\a", "a\rb", "\u202e", "\xff\xfe", "日本\u0085", "a\nb\tc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []struct {
			text   string
			layout bool
		}{{Escape(s), false}, {Text(s), true}} {
			if !utf8.ValidString(out.text) {
				t.Fatalf("not UTF-8: %q", out.text)
			}
			for _, r := range out.text {
				if out.layout && (r == '\n' || r == '\t') {
					continue
				}
				if !unicode.IsGraphic(r) && r != '\u200c' && r != '\u200d' {
					t.Fatalf("%q keeps %U: %q", s, r, out.text)
				}
			}
		}
		if firstUnsafe(s, false) < 0 && Escape(s) != s {
			t.Fatalf("printable ASCII changed: %q -> %q", s, Escape(s))
		}
	})
}
