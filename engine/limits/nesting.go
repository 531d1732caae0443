package limits

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// nestingSummary is the summary of every nesting diagnostic.
const nestingSummary = "Nesting too deep"

func nestingDiagnostic(rng hcl.Range, what string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  nestingSummary,
		Detail: fmt.Sprintf("The %s is nested deeper than %d levels (brackets, operators, template directives); gardener refuses it before parsing, "+
			"since no landscape needs that and parsing it could overflow the stack.", what, MaxNesting),
		Subject: rng.Ptr(),
	}
}

func numberDiagnostic(rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Number too long",
		Detail: fmt.Sprintf("The number is written with more than %d characters; numbers keep about 154 digits of precision, and parsing longer ones takes time that grows with the square of their length.",
			MaxNumberLength),
		Subject: rng.Ptr(),
	}
}

// HCL checks the nesting of HCL native syntax: a configuration file, or a template when
// template is set. It counts what the parser and the evaluator recurse on: brackets, braces,
// parentheses, quotes, heredocs and template sequences; template if and for directives; and at
// each level the operators and index brackets that chain without brackets (a ? b : c ? ..., !!x,
// a[0][1]...), which HCL parses into nested expressions too. A comma ends a chain, and so does a
// newline where it ends an item (in a body or an object, not inside parentheses or a list). The
// count is an upper bound of the depth, so it may refuse a shallow but very long chain, which no
// landscape writes either.
func HCL(src []byte, filename string, start hcl.Pos, template bool) hcl.Diagnostics {
	var tokens hclsyntax.Tokens
	if template {
		tokens, _ = hclsyntax.LexTemplate(src, filename, start)
	} else {
		tokens, _ = hclsyntax.LexConfig(src, filename, start)
	}
	type level struct {
		open  hclsyntax.TokenType
		chain int
	}
	stack := []level{{open: hclsyntax.TokenOBrace}} // the file is a body
	depth, directives := 0, 0
	afterControl := false
	for _, tok := range tokens {
		top := &stack[len(stack)-1]
		switch tok.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOQuote,
			hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			stack = append(stack, level{open: tok.Type})
			depth++
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if len(stack) > 1 {
				depth -= 1 + top.chain
				stack = stack[:len(stack)-1]
				if tok.Type == hclsyntax.TokenCBrack {
					// an index or a splat on what came before nests it once more
					stack[len(stack)-1].chain++
					depth++
				}
			}
		case hclsyntax.TokenComma:
			depth -= top.chain
			top.chain = 0
		case hclsyntax.TokenNewline:
			if top.open == hclsyntax.TokenOBrace {
				depth -= top.chain
				top.chain = 0
			}
		case hclsyntax.TokenQuestion, hclsyntax.TokenBang, hclsyntax.TokenMinus, hclsyntax.TokenPlus, hclsyntax.TokenStar,
			hclsyntax.TokenSlash, hclsyntax.TokenPercent, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenEqualOp,
			hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan,
			hclsyntax.TokenGreaterThanEq:
			top.chain++
			depth++
		case hclsyntax.TokenIdent:
			if afterControl {
				switch string(tok.Bytes) {
				case "if", "for":
					directives++
					depth++
				case "endif", "endfor":
					if directives > 0 {
						directives--
						depth--
					}
				}
			}
		}
		afterControl = tok.Type == hclsyntax.TokenTemplateControl
		if tok.Type == hclsyntax.TokenNumberLit && len(tok.Bytes) > MaxNumberLength {
			return hcl.Diagnostics{numberDiagnostic(tok.Range)}
		}
		if depth > MaxNesting {
			what := "configuration"
			if template {
				what = "template"
			}
			return hcl.Diagnostics{nestingDiagnostic(tok.Range, what)}
		}
	}
	return nil
}

// JSON checks the nesting of a JSON document (arrays and objects) and the length of its
// numbers. With templates set (HCL's JSON syntax, whose strings are templates) the strings
// holding template sequences are checked as HCL templates too.
func JSON(src []byte, filename string, templates bool) hcl.Diagnostics {
	depth, number := 0, 0
	for i := 0; i < len(src); i++ {
		if c := src[i]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			if number++; number > MaxNumberLength {
				return hcl.Diagnostics{numberDiagnostic(rangeAt(src, filename, i))}
			}
			continue
		}
		number = 0
		switch src[i] {
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return hcl.Diagnostics{nestingDiagnostic(rangeAt(src, filename, i), "JSON document")}
			}
		case ']', '}':
			depth--
		case '"':
			end := stringEnd(src, i)
			if templates {
				if d := jsonTemplate(src, filename, i, end); d != nil {
					return d
				}
			}
			i = end
		}
	}
	return nil
}

// stringEnd returns the index of the quote that ends the JSON string starting at i (or the last
// index of an unterminated one).
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src) - 1
}

// jsonTemplate checks a string of HCL's JSON syntax as the template HCL parses it as.
func jsonTemplate(src []byte, filename string, start, end int) hcl.Diagnostics {
	lit := src[start : end+1]
	if !containsSequence(lit) {
		return nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return nil // the parser reports it
	}
	return HCL([]byte(s), filename, rangeAt(src, filename, start).Start, true)
}

func containsSequence(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if (b[i] == '$' || b[i] == '%') && b[i+1] == '{' {
			return true
		}
	}
	return false
}

// JSONError is JSON's first diagnostic as an error, for a function's argument.
func JSONError(src []byte) error {
	if d := JSON(src, "", false); d.HasErrors() {
		return fmt.Errorf("%s", strings.TrimSuffix(lowerFirst(d[0].Detail), "."))
	}
	return nil
}

// lowerFirst lower-cases the first letter of a sentence so that it reads as part of an error.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// rangeAt is the one-byte range at offset i of src.
func rangeAt(src []byte, filename string, i int) hcl.Range {
	pos := hcl.Pos{Line: 1, Column: 1, Byte: i}
	for _, b := range src[:i] {
		if b == '\n' {
			pos.Line++
			pos.Column = 1
		} else if b&0xC0 != 0x80 { // count characters, not continuation bytes
			pos.Column++
		}
	}
	end := pos
	end.Byte++
	end.Column++
	return hcl.Range{Filename: filename, Start: pos, End: end}
}
