// Package funcs holds the functions that landscape expressions may call. The set mirrors the
// Terraform functions users already know, built on go-cty's stdlib, plus the file, encoding,
// network and hashing helpers that landscapes need. Every function is pure: nothing reads the
// clock, randomness or the network, so rendering a landscape twice gives the same result.
//
// A landscape is untrusted input, so every function is bounded (bounds.go): files are read
// through engine/landscapefs (regular files only, confined to the landscape directory in
// confined mode), decoders refuse documents nested or aliased beyond engine/limits, and no
// argument or result may exceed limits.MaxValueSize.
package funcs

import (
	"maps"
	"strings"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/limits"
)

// Table returns the functions of landscape expressions. dir is the landscape directory: file()
// and templatefile() read through it, relative paths resolved against it.
//
// A fresh map is returned on every call so callers may add or remove entries freely.
func Table(dir *landscapefs.Dir) map[string]function.Function {
	table := baseTable(dir)
	// The for expressions of the landscape and of its templates count against one budget per
	// table, that is per evaluation (limits.BoundForExpressions). Not bound: the function hands
	// its argument on and must not cost a size check per loop.
	table[limits.IterationFunction] = (&limits.Iterations{}).Function()
	// Templates get every function except templatefile itself, so a template cannot render
	// itself (or a cycle of templates) forever.
	inner := maps.Clone(table)
	table["templatefile"] = bound("templatefile", makeTemplateFileFunc(dir, inner))
	return table
}

// baseTable is every function except templatefile.
func baseTable(dir *landscapefs.Dir) map[string]function.Function {
	table := unboundedTable(dir)
	for name, fn := range table {
		table[name] = bound(name, fn)
	}
	return table
}

// unboundedTable is every function except templatefile, as go-cty's stdlib and this package
// define them; bound adds the limits.
func unboundedTable(dir *landscapefs.Dir) map[string]function.Function {
	return map[string]function.Function{
		// numeric
		"abs":      stdlib.AbsoluteFunc,
		"ceil":     stdlib.CeilFunc,
		"floor":    stdlib.FloorFunc,
		"log":      stdlib.LogFunc,
		"max":      stdlib.MaxFunc,
		"min":      stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc,
		"pow":      stdlib.PowFunc,
		"signum":   stdlib.SignumFunc,

		// strings
		"chomp":      stdlib.ChompFunc,
		"format":     stdlib.FormatFunc,
		"formatlist": stdlib.FormatListFunc,
		"indent":     stdlib.IndentFunc,
		"join":       stdlib.JoinFunc,
		"lower":      stdlib.LowerFunc,
		"regex":      stdlib.RegexFunc,
		"regexall":   stdlib.RegexAllFunc,
		"replace":    replaceFunc,
		"split":      stdlib.SplitFunc,
		"strrev":     stdlib.ReverseFunc,
		"substr":     stdlib.SubstrFunc,
		"title":      stdlib.TitleFunc,
		"trim":       stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc,
		"trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace":  stdlib.TrimSpaceFunc,
		"upper":      stdlib.UpperFunc,

		// collections
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"keys":            stdlib.KeysFunc,
		"length":          lengthFunc,
		"lookup":          stdlib.LookupFunc,
		"merge":           stdlib.MergeFunc,
		"range":           stdlib.RangeFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,

		// encoding
		"base64decode": base64DecodeFunc,
		"base64encode": base64EncodeFunc,
		"csvdecode":    stdlib.CSVDecodeFunc,
		"jsondecode":   stdlib.JSONDecodeFunc,
		"jsonencode":   stdlib.JSONEncodeFunc,
		"yamldecode":   yamlDecodeFunc,
		"yamlencode":   yamlEncodeFunc,

		// formatting a given timestamp is pure; reading the clock (timestamp()) is not offered
		"formatdate": stdlib.FormatDateFunc,

		// hashing
		"sha256": sha256Func,

		// network
		"cidrhost":   cidrHostFunc,
		"cidrsubnet": cidrSubnetFunc,

		// files
		"file": makeFileFunc(dir),

		// type conversion
		"tobool":   stdlib.MakeToFunc(cty.Bool),
		"tolist":   stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":    stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber": stdlib.MakeToFunc(cty.Number),
		"toset":    stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring": stdlib.MakeToFunc(cty.String),

		// marks (sensitive.go)
		"sensitive": sensitiveFunc,

		// error handling
		"can": tryfunc.CanFunc,
		"try": tryfunc.TryFunc,
	}
}

// refineNotNull marks results of functions that never return null, so unknown results carry
// that knowledge into later expressions.
func refineNotNull(b *cty.RefinementBuilder) *cty.RefinementBuilder {
	return b.NotNull()
}

// replaceFunc is stdlib's replace with the Terraform convention that a substring wrapped in
// slashes ("/a+/") is a regular expression, so landscapes ported from Terraform keep working.
var replaceFunc = function.New(&function.Spec{
	Description: "Replaces every occurrence of substr in str with replace; a substr wrapped in slashes is a regular expression.",
	Params: []function.Parameter{
		{Name: "str", Type: cty.String},
		{Name: "substr", Type: cty.String},
		{Name: "replace", Type: cty.String},
	},
	Type:         function.StaticReturnType(cty.String),
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		substr := args[1].AsString()
		if len(substr) > 1 && strings.HasPrefix(substr, "/") && strings.HasSuffix(substr, "/") {
			pattern := cty.StringVal(substr[1 : len(substr)-1])
			return stdlib.RegexReplaceFunc.Call([]cty.Value{args[0], pattern, args[2]})
		}
		return stdlib.ReplaceFunc.Call(args)
	},
})

// lengthFunc extends stdlib's length (collections only) to strings and objects, as Terraform
// users expect: a string's length counts its characters (grapheme clusters), an object's its
// attributes.
var lengthFunc = function.New(&function.Spec{
	Description: "Returns the number of elements of a collection, attributes of an object or characters of a string.",
	Params: []function.Parameter{
		{
			Name:             "value",
			Type:             cty.DynamicPseudoType,
			AllowDynamicType: true,
			AllowUnknown:     true,
		},
	},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty == cty.String, ty == cty.DynamicPseudoType, ty.IsObjectType(), ty.IsCollectionType(), ty.IsTupleType():
			return cty.Number, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "argument must be a string, a collection or an object, not %s", ty.FriendlyName())
	},
	RefineResult: refineNotNull,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		ty := v.Type()
		switch {
		case ty == cty.DynamicPseudoType:
			return cty.UnknownVal(cty.Number), nil
		case ty.IsObjectType():
			// The attributes are fixed by the type, so even an unknown object has a known length.
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))), nil
		case ty == cty.String:
			return stdlib.StrlenFunc.Call(args)
		}
		return stdlib.LengthFunc.Call(args)
	},
})
