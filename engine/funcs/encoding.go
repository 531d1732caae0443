package funcs

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	yaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// yamlDecodeFunc parses one YAML document into a cty value whose type follows the document
// (mappings become objects, sequences tuples). A stream of several documents is rejected: one
// expression has one value, and silently dropping documents would hide mistakes.
var yamlDecodeFunc = function.New(&function.Spec{
	Description: "Parses a string holding a single YAML document and returns its value.",
	Params:      []function.Parameter{{Name: "src", Type: cty.String}},
	Type: func(args []cty.Value) (cty.Type, error) {
		if !args[0].IsKnown() {
			return cty.DynamicPseudoType, nil
		}
		src := args[0].AsString()
		ty, err := yaml.Standard.ImpliedType([]byte(src))
		if err != nil {
			return cty.NilType, yamlError(src, err)
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		src := args[0].AsString()
		v, err := yaml.Standard.Unmarshal([]byte(src), retType)
		if err != nil {
			return cty.NilVal, yamlError(src, err)
		}
		return v, nil
	},
})

// yamlError explains a decoding failure. go-cty-yaml reports a second document only as "extra
// content", so a stream of several documents gets its own message saying what is wrong.
func yamlError(src string, err error) error {
	if n := yamlDocuments(src); n > 1 {
		return function.NewArgErrorf(0, "invalid YAML: the string holds %d documents, but yamldecode decodes exactly one", n)
	}
	return function.NewArgErrorf(0, "invalid YAML: %s", err)
}

// yamlDocuments counts the documents of a YAML stream from its line structure alone: a document
// starts at a "---" marker, or at the first content after the stream start or a "..." end marker.
// YAML forbids "---" and "..." at the start of a line inside any scalar, so no parse is needed.
func yamlDocuments(src string) int {
	docs, open := 0, false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case yamlMarker(line, "---"):
			docs++
			open = true
		case yamlMarker(line, "..."):
			open = false
		case trimmed == "", strings.HasPrefix(trimmed, "#"):
			// blank lines and comments belong to no document
		case !open && strings.HasPrefix(line, "%"):
			// a directive, which precedes a "---" marker
		case !open:
			docs++
			open = true
		}
	}
	return docs
}

// yamlMarker reports whether line starts with the document marker m ("---" or "...").
func yamlMarker(line, m string) bool {
	rest, ok := strings.CutPrefix(line, m)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// yamlEncodeFunc renders any value as a YAML document, for manifests and config files that a
// component passes on verbatim.
var yamlEncodeFunc = function.New(&function.Spec{
	Description: "Returns the value encoded as a YAML document.",
	Params: []function.Parameter{{
		Name:             "value",
		Type:             cty.DynamicPseudoType,
		AllowNull:        true,
		AllowDynamicType: true,
	}},
	Type:         function.StaticReturnType(cty.String),
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			// Part of the value is not known until apply, so neither is its encoding.
			return cty.UnknownVal(retType), nil
		}
		raw, err := yaml.Standard.Marshal(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "cannot encode as YAML: %s", err)
		}
		return cty.StringVal(string(raw)), nil
	},
})

// base64EncodeFunc encodes a string's UTF-8 bytes with standard, padded base64, the form
// Kubernetes Secret data expects.
var base64EncodeFunc = function.New(&function.Spec{
	Description:  "Returns the standard base64 encoding of the string's UTF-8 bytes.",
	Params:       []function.Parameter{{Name: "str", Type: cty.String}},
	Type:         function.StaticReturnType(cty.String),
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

// base64DecodeFunc decodes standard, padded base64. cty strings are Unicode text, so bytes
// that are not UTF-8 are an error rather than a corrupted string.
var base64DecodeFunc = function.New(&function.Spec{
	Description:  "Decodes a standard base64 string whose decoded bytes are UTF-8 text.",
	Params:       []function.Parameter{{Name: "str", Type: cty.String}},
	Type:         function.StaticReturnType(cty.String),
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		raw, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "invalid base64 data: %s", err)
		}
		if !utf8.Valid(raw) {
			return cty.NilVal, function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8 text")
		}
		return cty.StringVal(string(raw)), nil
	},
})

// sha256Func hashes a string's UTF-8 bytes, typically to derive a checksum annotation that
// changes whenever a rendered config changes.
var sha256Func = function.New(&function.Spec{
	Description:  "Returns the lower-case hexadecimal SHA-256 digest of the string's UTF-8 bytes.",
	Params:       []function.Parameter{{Name: "str", Type: cty.String}},
	Type:         function.StaticReturnType(cty.String),
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		sum := sha256.Sum256([]byte(args[0].AsString()))
		return cty.StringVal(hex.EncodeToString(sum[:])), nil
	},
})
