// Package address reads and writes the addresses of a landscape's blocks, their instances and
// the parts of composite instances:
//
//	shoot.local                          a block, or the one instance of a block without count or for_each
//	shoot.local["dev"]                   an instance of a block with for_each
//	component.manifests.crds[0]          an instance of a component block with count
//	shoot.local["dev"].kube_apiserver    a part of a composite (garden, seed, shoot) instance
//	component.extension.calico.registration  a part of a component that renders parts (extension)
//
// Plans, the state, --target and --allow-destroy carry addresses as text (config.InstanceAddress
// and plain strings); this package is the one place that takes that text apart, so that every
// user agrees on where an instance key ends (it may hold dots, brackets and escaped quotes),
// which composite instance a part belongs to, and which addresses a --target or --allow-destroy
// address stands for. It depends on nothing of the engine but the block kinds, so that config,
// graph, plan and apply can all use it.
package address

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// Address is a parsed block, instance or part address.
type Address struct {
	// Kind is the kind of the block: garden, seed, shoot or component.
	Kind schema.Kind
	// Type is a component block's type ("manifests"); empty for garden, seed and shoot blocks.
	Type string
	// Name is the block's name.
	Name string
	// Key is the instance key; zero for a block address and for the instance of a block
	// without count or for_each.
	Key Key
	// Part is the name of a composite instance's part; empty for anything else.
	Part string
}

// Parse reads an address as String writes it: `<kind>.<name>` or `component.<type>.<name>`,
// then an optional instance key (a Go-quoted string or a whole number in brackets), then an
// optional `.<part>`: the parts of garden, seed and shoot blocks, and of the component types that
// render parts of their own (an extension's registration and its installations on seeds). Names
// are HCL identifiers. Anything else, spaces included, is an error.
func Parse(s string) (Address, error) {
	fail := func(why string) (Address, error) {
		return Address{}, fmt.Errorf("%q is not an address: %s", s, why)
	}
	var a Address
	kind, rest := identifier(s)
	switch k := schema.Kind(kind); k {
	case schema.KindGarden, schema.KindSeed, schema.KindShoot, schema.KindComponent:
		a.Kind = k
	default:
		return fail("it names no garden, seed, shoot or component block")
	}
	var names [2]string // the type and the name of a component, the name of any other block
	count := 1
	if a.Kind == schema.KindComponent {
		count = 2
	}
	for i := range count {
		after, ok := strings.CutPrefix(rest, ".")
		if !ok {
			return fail(fmt.Sprintf("a %s address names %s", a.Kind, namesOf(a.Kind)))
		}
		names[i], rest = identifier(after)
		if !isName(names[i]) {
			return fail(fmt.Sprintf("%q is not a name", names[i]))
		}
	}
	if count == 2 {
		a.Type, a.Name = names[0], names[1]
	} else {
		a.Name = names[0]
	}
	if strings.HasPrefix(rest, "[") {
		key, after, err := parseKey(rest)
		if err != nil {
			return fail(err.Error())
		}
		a.Key, rest = key, after
	}
	if after, ok := strings.CutPrefix(rest, "."); ok {
		a.Part, rest = identifier(after)
		if !isName(a.Part) {
			return fail(fmt.Sprintf("%q is not the name of a part", a.Part))
		}
	}
	if rest != "" {
		return fail(fmt.Sprintf("%q follows it", rest))
	}
	return a, nil
}

// namesOf says what an address of kind names after its kind.
func namesOf(kind schema.Kind) string {
	if kind == schema.KindComponent {
		return "the component's type and name"
	}
	return "the block's name"
}

// identifier splits s before the first '.' or '['.
func identifier(s string) (name, rest string) {
	if i := strings.IndexAny(s, ".["); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// isName reports whether s is an HCL identifier, as block labels and part names are: a letter
// or underscore, then letters, digits, combining marks, underscores and dashes. (hclsyntax's
// ValidIdentifier runs the scanner, too slow for the graph's sorting, which parses addresses.)
func isName(s string) bool {
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || r == '_':
		case i > 0 && (unicode.IsDigit(r) || r == '-' || unicode.In(r, unicode.Mn, unicode.Mc)):
		default:
			return false
		}
	}
	return s != ""
}

// parseKey reads the instance key at the start of s, which starts with '['.
func parseKey(s string) (Key, string, error) {
	inner := s[1:]
	if strings.HasPrefix(inner, `"`) {
		quoted, err := strconv.QuotedPrefix(inner)
		if err != nil {
			return Key{}, "", fmt.Errorf("its instance key is not a closed quoted string")
		}
		value, _ := strconv.Unquote(quoted) // QuotedPrefix found it valid
		rest, ok := strings.CutPrefix(inner[len(quoted):], "]")
		if !ok {
			return Key{}, "", fmt.Errorf("its instance key is not closed by ]")
		}
		return StringKey(value), rest, nil
	}
	digits, rest, ok := strings.Cut(inner, "]")
	if !ok {
		return Key{}, "", fmt.Errorf("its instance key is not closed by ]")
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || strconv.Itoa(n) != digits {
		return Key{}, "", fmt.Errorf("its instance key %s is neither a quoted string nor a whole number", digits)
	}
	return IntKey(n), rest, nil
}

// String writes the address as Parse reads it; string keys are quoted as Go quotes them, which
// is how the loader names instances.
func (a Address) String() string {
	var b strings.Builder
	b.Grow(len(a.Kind) + len(a.Type) + len(a.Name) + len(a.Part) + 3)
	b.WriteString(string(a.Kind))
	if a.Type != "" {
		b.WriteString(".")
		b.WriteString(a.Type)
	}
	b.WriteString(".")
	b.WriteString(a.Name)
	if !a.Key.IsZero() {
		b.WriteString(a.Key.String())
	}
	if a.Part != "" {
		b.WriteString(".")
		b.WriteString(a.Part)
	}
	return b.String()
}

// Block is the address of the block a is an instance or part of: a without key and part.
func (a Address) Block() Address {
	return Address{Kind: a.Kind, Type: a.Type, Name: a.Name}
}

// IsPart reports whether a is the address of a composite instance's part.
func (a Address) IsPart() bool { return a.Part != "" }

// Parent is the composite instance a part belongs to (a without its part); false when a is no
// part.
func (a Address) Parent() (Address, bool) {
	if !a.IsPart() {
		return a, false
	}
	a.Part = ""
	return a, true
}

// Matches reports whether a, an address given as --target or --allow-destroy, stands for
// other: a block address (no key, no part) stands for every instance of the block and their
// parts, an instance address for the instance and its parts, a part's address for that part
// only.
func (a Address) Matches(other Address) bool {
	switch {
	case a.Block() != other.Block():
		return false
	case a.IsPart():
		return a == other
	case a.Key.IsZero():
		return true
	default:
		return a.Key == other.Key
	}
}

// Key is an instance key: a string (for_each), a whole number (count), or none. The zero Key
// is none.
type Key struct {
	kind keyKind
	str  string
	num  int
}

type keyKind uint8

const (
	noKey keyKind = iota
	intKey
	stringKey
)

// StringKey is the key of a for_each instance.
func StringKey(s string) Key { return Key{kind: stringKey, str: s} }

// IntKey is the key of a count instance.
func IntKey(n int) Key { return Key{kind: intKey, num: n} }

// IsZero reports whether k is no key.
func (k Key) IsZero() bool { return k.kind == noKey }

// Literal is the key as an address writes it between the brackets: `"dev"` or `0`; empty for
// no key.
func (k Key) Literal() string {
	switch k.kind {
	case stringKey:
		return strconv.Quote(k.str)
	case intKey:
		return strconv.Itoa(k.num)
	}
	return ""
}

// String is the key in its brackets, `["dev"]` or `[0]`; empty for no key.
func (k Key) String() string {
	if k.IsZero() {
		return ""
	}
	return "[" + k.Literal() + "]"
}

// Compare orders keys: no key first, then whole numbers by value (x[2] before x[10]), then
// strings lexically. It returns -1, 0 or +1.
func (k Key) Compare(o Key) int {
	if c := cmp.Compare(k.kind, o.kind); c != 0 {
		return c
	}
	if c := cmp.Compare(k.num, o.num); c != 0 {
		return c
	}
	return strings.Compare(k.str, o.str)
}
