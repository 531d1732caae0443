// Package limits bounds what a landscape can make gardener compute, so that no input crashes it:
// how deeply HCL, JSON and YAML may nest (checked before parsing, since the parsers recurse once
// per level and a stack overflow ends a Go program without recovery), how far YAML aliases may
// expand, how large a value may grow, and how many elements a collection builder may make. A
// landscape is untrusted input (CI plans pull requests); docs/security.md lists the limits.
package limits

// The limits. Each is far above what a landscape needs and far below what would exhaust a
// process.
const (
	// MaxNesting is how deeply brackets, operators and template directives may nest in HCL,
	// and brackets and collections in JSON and YAML.
	MaxNesting = 200
	// MaxValueSize is how large a value may be: the bytes of its strings plus ElementSize for
	// every element, attribute and value in it, counted as if no part were shared.
	MaxValueSize = 64 << 20
	// ElementSize is what each element of a collection counts towards MaxValueSize, about what
	// it takes in memory.
	ElementSize = 64
	// MaxElements is how many elements a collection builder (setproduct) may make.
	MaxElements = 10000
	// MaxAliasExpansion is how many values YAML aliases may add to a document, counted as if
	// every alias were replaced by a copy of its anchor.
	MaxAliasExpansion = 100000
	// MaxFormatWidth is the largest width or precision a format verb may ask for.
	MaxFormatWidth = 10000
	// MaxNumberLength is how many characters a number may be written with: go-cty keeps 512
	// bits of precision (about 154 digits), and parsing a longer number takes time quadratic in
	// its length (a million digits take seconds).
	MaxNumberLength = 256
	// MaxDecodeSize is the longest string yamldecode, jsondecode and csvdecode decode: every few
	// bytes of it may become a value, and values take far more memory than their text.
	MaxDecodeSize = 4 << 20
)
