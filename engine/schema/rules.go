package schema

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Rule checks a decoded block as a whole: relations that a single attribute's checks cannot see,
// such as two networks that must not overlap or two attributes of which exactly one is set.
type Rule struct {
	// Name identifies the rule in documentation.
	Name string
	// Describe says what the rule demands, for documentation.
	Describe string
	// Func checks cfg, the block's decoded configuration. referenced holds, by attribute name,
	// the decoded configuration of the block each reference attribute points at; an entry is
	// absent when the target is not known (not set, or an instance chosen by a computed key).
	Func func(cfg cty.Value, referenced map[string]cty.Value) []Violation
}

// Violation is one broken rule at an attribute path of the block, e.g. ["networks", "pods"].
type Violation struct {
	Path    []string
	Message string
}

// Path is a dotted attribute path within a block, e.g. "networks.pods".
type Path = string

// at returns the value at a dotted path of an object, unmarked; null when a step is missing,
// null or unknown.
func at(v cty.Value, path Path) cty.Value {
	for _, step := range strings.Split(path, ".") {
		if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute(step) {
			return cty.NullVal(cty.DynamicPseudoType)
		}
		v = v.GetAttr(step)
	}
	v, _ = v.Unmark()
	return v
}

// lookup returns the known, non-null string at a dotted path of an object, or "".
func lookup(v cty.Value, path Path) string {
	v = at(v, path)
	if v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.String) {
		return ""
	}
	return v.AsString()
}

func isSet(v cty.Value, path Path) bool { return !at(v, path).IsNull() }

func splitPath(p Path) []string { return strings.Split(p, ".") }

// overlap reports whether two CIDRs share addresses; unparsable ones never overlap (their own
// checks report them).
func overlap(a, b string) bool {
	pa, errA := netip.ParsePrefix(a)
	pb, errB := netip.ParsePrefix(b)
	return errA == nil && errB == nil && pa.Overlaps(pb)
}

// DisjointNetworks demands that the CIDRs at the given paths do not overlap one another.
func DisjointNetworks(paths ...Path) Rule {
	return Rule{
		Name:     "disjoint-networks",
		Describe: fmt.Sprintf("the networks %s must not overlap", strings.Join(paths, ", ")),
		Func: func(cfg cty.Value, _ map[string]cty.Value) []Violation {
			var out []Violation
			for i := range paths {
				for j := i + 1; j < len(paths); j++ {
					a, b := lookup(cfg, paths[i]), lookup(cfg, paths[j])
					if a != "" && b != "" && overlap(a, b) {
						out = append(out, Violation{Path: splitPath(paths[j]), Message: fmt.Sprintf(
							"The network %s (%s) overlaps %s (%s); they must be disjoint.", paths[j], b, paths[i], a)})
					}
				}
			}
			return out
		},
	}
}

// DisjointFromReferenced demands that the CIDRs at own paths do not overlap the CIDRs at
// theirs paths of the block referenced by attribute ref (a shoot's networks and its seed's).
func DisjointFromReferenced(ref string, own []Path, theirs []Path, why string) Rule {
	return Rule{
		Name:     "disjoint-from-" + ref,
		Describe: fmt.Sprintf("the networks %s must not overlap the %s's networks %s: %s", strings.Join(own, ", "), ref, strings.Join(theirs, ", "), why),
		Func: func(cfg cty.Value, referenced map[string]cty.Value) []Violation {
			other, ok := referenced[ref]
			if !ok {
				return nil
			}
			var out []Violation
			for _, p := range own {
				a := lookup(cfg, p)
				for _, q := range theirs {
					b := lookup(other, q)
					if a != "" && b != "" && overlap(a, b) {
						out = append(out, Violation{Path: splitPath(p), Message: fmt.Sprintf(
							"The network %s (%s) overlaps the %s's %s (%s); %s", p, a, ref, q, b, why)})
					}
				}
			}
			return out
		},
	}
}

// ExactlyOneOf demands that exactly one of the attributes is set.
func ExactlyOneOf(paths ...Path) Rule {
	return Rule{
		Name:     "exactly-one-of",
		Describe: fmt.Sprintf("exactly one of %s must be set", strings.Join(paths, ", ")),
		Func: func(cfg cty.Value, _ map[string]cty.Value) []Violation {
			demand := fmt.Sprintf("Exactly one of %s must be set", strings.Join(paths, ", "))
			switch set := setAmong(cfg, paths); len(set) {
			case 1:
				return nil
			case 0:
				return []Violation{{Message: demand + "; none is."}}
			default:
				return moreThanOneSet(demand, set)
			}
		},
	}
}

// AtMostOneOf demands that no more than one of the attributes is set.
func AtMostOneOf(paths ...Path) Rule {
	return Rule{
		Name:     "at-most-one-of",
		Describe: fmt.Sprintf("at most one of %s may be set", strings.Join(paths, ", ")),
		Func: func(cfg cty.Value, _ map[string]cty.Value) []Violation {
			if set := setAmong(cfg, paths); len(set) > 1 {
				return moreThanOneSet(fmt.Sprintf("At most one of %s may be set", strings.Join(paths, ", ")), set)
			}
			return nil
		},
	}
}

// AtLeastOneOf demands that one or more of the attributes are set.
func AtLeastOneOf(paths ...Path) Rule {
	return Rule{
		Name:     "at-least-one-of",
		Describe: fmt.Sprintf("at least one of %s must be set", strings.Join(paths, ", ")),
		Func: func(cfg cty.Value, _ map[string]cty.Value) []Violation {
			if len(setAmong(cfg, paths)) > 0 {
				return nil
			}
			return []Violation{{Message: fmt.Sprintf("At least one of %s must be set.", strings.Join(paths, ", "))}}
		},
	}
}

// setAmong returns the paths that are set in cfg, in the order given: what the one-of rules
// count.
func setAmong(cfg cty.Value, paths []Path) []Path {
	var set []Path
	for _, p := range paths {
		if isSet(cfg, p) {
			set = append(set, p)
		}
	}
	return set
}

// moreThanOneSet is the violation of a rule that allows one of the paths when set holds two or
// more: demand is the rule's sentence, without its full stop, and the violation points at the
// second path set, the first that is one too many.
func moreThanOneSet(demand string, set []Path) []Violation {
	return []Violation{{Path: splitPath(set[1]), Message: fmt.Sprintf("%s, but %s are.", demand, strings.Join(set, " and "))}}
}
