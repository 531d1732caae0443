package schema

import (
	"fmt"
	"math/big"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robfig/cron/v3"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"k8s.io/apimachinery/pkg/api/resource"
)

// This file holds the reusable value checks that schemas attach to attributes. Each constructor
// returns a fresh Check so that a schema can never alter a check another schema uses. A check's
// Func returns one full sentence that names the problem; long values are shortened before they
// are quoted, so a diagnostic never repeats a whole manifest or certificate back at the user, and
// a sensitive (marked) value is never quoted at all.

// checkMaxQuoted bounds how many characters of a value a message repeats.
const checkMaxQuoted = 64

// checkQuote renders a string for a message, shortened to checkMaxQuoted characters.
func checkQuote(s string) string {
	if utf8.RuneCountInString(s) > checkMaxQuoted {
		r := []rune(s)
		s = string(r[:checkMaxQuoted-3]) + "..."
	}
	return strconv.Quote(s)
}

// checkValue prepares a value for a check: marks are dropped because a check only reads the
// value (sensitive reports whether there were any, so that messages do not repeat it), and unknown
// or null values pass, since they are checked once they are known.
func checkValue(v cty.Value) (_ cty.Value, sensitive, ok bool) {
	if v == cty.NilVal {
		return v, false, false
	}
	v, marks := v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() {
		return v, false, false
	}
	return v, len(marks) > 0, true
}

// stringCheck builds a check for a string attribute from a predicate that returns the rest of a
// sentence whose subject is the quoted value ("is not a CIDR ..."), or "" when the value is fine.
func stringCheck(name, describe string, problem func(string) string) Check {
	return Check{Name: name, Describe: describe, Func: func(v cty.Value) string {
		v, sensitive, ok := checkValue(v)
		if !ok {
			return ""
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return fmt.Sprintf("The value must be a string, not %s.", v.Type().FriendlyName())
		}
		if p := problem(s.AsString()); p != "" {
			if sensitive {
				return "The sensitive value is invalid; it must be " + describe + "."
			}
			return checkQuote(s.AsString()) + " " + p
		}
		return ""
	}}
}

// listCheck builds a check for a list (or set or tuple) of strings from the same kind of
// predicate as stringCheck; it reports the first element with a problem, by index.
func listCheck(name, describe string, problem func(string) string) Check {
	return Check{Name: name, Describe: describe, Func: func(v cty.Value) string {
		v, sensitive, ok := checkValue(v)
		if !ok {
			return ""
		}
		if !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
			return fmt.Sprintf("The value must be a list of strings, not %s.", v.Type().FriendlyName())
		}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			if !e.IsKnown() {
				continue
			}
			if e.IsNull() {
				return fmt.Sprintf("The element at index %d is null; every element must be set.", i)
			}
			s, err := convert.Convert(e, cty.String)
			if err != nil {
				return fmt.Sprintf("The element at index %d must be a string, not %s.", i, e.Type().FriendlyName())
			}
			if p := problem(s.AsString()); p != "" {
				if sensitive {
					return fmt.Sprintf("The element at index %d of the sensitive list is invalid; it must be %s.", i, describe)
				}
				return fmt.Sprintf("The element at index %d, %s, %s", i, checkQuote(s.AsString()), p)
			}
		}
		return ""
	}}
}

// numberCheck builds a check for a number attribute from a predicate on the number.
func numberCheck(name, describe string, problem func(*big.Float) string) Check {
	return Check{Name: name, Describe: describe, Func: func(v cty.Value) string {
		v, sensitive, ok := checkValue(v)
		if !ok {
			return ""
		}
		n, err := convert.Convert(v, cty.Number)
		if err != nil {
			return fmt.Sprintf("The value must be a number, not %s.", v.Type().FriendlyName())
		}
		p := problem(n.AsBigFloat())
		if p != "" && sensitive {
			return "The sensitive value is invalid; it must be " + describe + "."
		}
		return p
	}}
}

// checkNumber renders a number for a message without exponent noise for ordinary values.
func checkNumber(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	return f.Text('g', 10)
}

// cidrProblem explains why s is not a network prefix in CIDR notation.
func cidrProblem(s string) string {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return "is not a CIDR such as 10.0.0.0/16 or fd00::/64."
	}
	if m := p.Masked(); m != p {
		return fmt.Sprintf("is not a network address because bits after the prefix length are set; did you mean %s?", m)
	}
	return ""
}

// CIDR demands a network prefix in CIDR notation whose host bits are zero, so that a typo such as
// 10.0.0.1/16 is caught before Gardener's API rejects it or, worse, two networks silently overlap.
func CIDR() Check {
	return stringCheck("cidr", "a network prefix in CIDR notation with no host bits set, such as 10.0.0.0/16", cidrProblem)
}

// CIDRList is CIDR for every element of a list(string).
func CIDRList() Check {
	return listCheck("cidr_list", "a list of network prefixes in CIDR notation, such as [\"10.0.0.0/16\"]", cidrProblem)
}

var (
	kubernetesVersionRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
	minorVersionRE      = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
)

func kubernetesVersionProblem(s string) string {
	if kubernetesVersionRE.MatchString(s) {
		return ""
	}
	if trimmed := strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V"); trimmed != s && kubernetesVersionRE.MatchString(trimmed) {
		return fmt.Sprintf("must not start with %q; write %s.", s[:1], trimmed)
	}
	if minorVersionRE.MatchString(s) {
		return fmt.Sprintf("lacks the patch number; write a full version such as %s.0.", s)
	}
	return "is not a Kubernetes version of the form MAJOR.MINOR.PATCH, such as 1.31.1."
}

// KubernetesVersion demands an exact MAJOR.MINOR.PATCH version: a landscape pins versions so that
// plans are reproducible, and Gardener's APIs spell versions without a leading "v".
func KubernetesVersion() Check {
	return stringCheck("kubernetes_version", "a Kubernetes version MAJOR.MINOR.PATCH without a leading v, such as 1.31.1", kubernetesVersionProblem)
}

// checkWholeNumber returns a sentence if f has a fractional part.
func checkWholeNumber(f *big.Float) string {
	if !f.IsInt() {
		return fmt.Sprintf("The value must be a whole number, but it is %s.", checkNumber(f))
	}
	return ""
}

// Positive demands a whole number greater than zero, e.g. a maximum node count.
func Positive() Check {
	return numberCheck("positive", "a whole number greater than zero", func(f *big.Float) string {
		if p := checkWholeNumber(f); p != "" {
			return p
		}
		if f.Sign() <= 0 {
			return fmt.Sprintf("The value must be greater than zero, but it is %s.", checkNumber(f))
		}
		return ""
	})
}

// NonNegative demands a whole number that is zero or more, e.g. a minimum node count.
func NonNegative() Check {
	return numberCheck("non_negative", "a whole number that is zero or greater", func(f *big.Float) string {
		if p := checkWholeNumber(f); p != "" {
			return p
		}
		if f.Sign() < 0 {
			return fmt.Sprintf("The value must not be negative, but it is %s.", checkNumber(f))
		}
		return ""
	})
}

// Range demands a number between low and high, both inclusive; fractions are allowed because some
// knobs (thresholds, ratios) are not counts.
func Range(low, high float64) Check {
	lo, hi := big.NewFloat(low), big.NewFloat(high)
	bounds := checkNumber(lo) + " and " + checkNumber(hi)
	return numberCheck("range", "a number between "+bounds+" (inclusive)", func(f *big.Float) string {
		if f.Cmp(lo) < 0 || f.Cmp(hi) > 0 {
			return fmt.Sprintf("The value must be between %s (inclusive), but it is %s.", bounds, checkNumber(f))
		}
		return ""
	})
}

// dnsLabelProblem explains why s is not an RFC 1123 label; what names the thing being checked
// ("the value" or "the label \"x\"") in the explanation.
func dnsLabelProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > 63:
		return fmt.Sprintf("is %d characters long, more than the 63 a DNS label allows", len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if i == 0 || i == len(s)-1 {
				return "must start and end with a lower-case letter or digit"
			}
		case c >= 'A' && c <= 'Z':
			return "contains upper-case letters; use lower case"
		default:
			return fmt.Sprintf("contains %q; only lower-case letters, digits and '-' are allowed", string(rune(c)))
		}
	}
	return ""
}

// DNSLabel demands an RFC 1123 label (lower-case letters, digits and '-', at most 63
// characters), the rule Kubernetes applies to namespace names and Gardener to project names.
func DNSLabel() Check {
	return stringCheck("dns_label", "an RFC 1123 label: lower-case letters, digits and '-', at most 63 characters", func(s string) string {
		if p := dnsLabelProblem(s); p != "" {
			return "is not a valid DNS label: it " + p + "."
		}
		return ""
	})
}

// subdomainProblem explains why s is not an RFC 1123 subdomain; what names the kind of value in
// the message ("DNS name", "Kubernetes object name").
func subdomainProblem(what string) func(string) string {
	return func(s string) string {
		if s == "" {
			return "is not a valid " + what + ": it is empty."
		}
		if len(s) > 253 {
			return fmt.Sprintf("is not a valid %s: it is %d characters long, more than the 253 allowed.", what, len(s))
		}
		for _, label := range strings.Split(s, ".") {
			if label == "" {
				return "is not a valid " + what + ": it has an empty label (two dots in a row, or a leading or trailing dot)."
			}
			if p := dnsLabelProblem(label); p != "" {
				return fmt.Sprintf("is not a valid %s: the label %s %s.", what, checkQuote(label), p)
			}
		}
		return ""
	}
}

var dnsNameProblem = subdomainProblem("DNS name")

// DNSName demands an RFC 1123 subdomain such as ingress.example.com: dot-separated labels of
// lower-case letters, digits and '-', at most 253 characters in total.
func DNSName() Check {
	return stringCheck("dns_name", "a lower-case DNS name (RFC 1123 subdomain) such as ingress.example.com", dnsNameProblem)
}

// DNSNameList is DNSName for every element of a list(string).
func DNSNameList() Check {
	return listCheck("dns_name_list", "a list of lower-case DNS names (RFC 1123 subdomains)", dnsNameProblem)
}

// ObjectName demands a name Kubernetes accepts for most objects (Secrets, ConfigMaps, bindings):
// an RFC 1123 subdomain such as my-credentials, at most 253 characters.
func ObjectName() Check {
	return stringCheck("object_name", "a Kubernetes object name: lower-case letters, digits, '-' and '.', such as my-credentials", subdomainProblem("Kubernetes object name"))
}

// Duration demands a Go duration string such as 30s, 5m or 1h30m that is not negative, the
// notation Kubernetes and Gardener use for durations in their APIs.
func Duration() Check {
	return stringCheck("duration", "a duration such as 30s, 5m or 1h30m", func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil {
			return "is not a duration; write a number with a unit (ns, us, ms, s, m, h), such as 30s, 5m or 1h30m."
		}
		if d < 0 {
			return "is negative; a duration must be zero or more."
		}
		return ""
	})
}

// Timestamp demands an RFC 3339 time with a zone, such as 2026-12-24T18:00:00Z, the notation of
// Kubernetes timestamps and Gardener's time annotations.
func Timestamp() Check {
	return stringCheck("timestamp", "an RFC 3339 time such as 2026-12-24T18:00:00Z", func(s string) string {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "is not an RFC 3339 time; write a date, a T, a time and a zone, such as 2026-12-24T18:00:00Z or 2026-12-24T19:00:00+01:00."
		}
		return ""
	})
}

var timeWindowRE = regexp.MustCompile(`^([0-9]{2})([0-9]{2})([0-9]{2})([+-])([0-9]{2})([0-9]{2})$`)

// TimeWindow demands a maintenance time as Gardener writes it, HHMMSS+ZONE (Gardener's
// MaintenanceTimeWindow in docs/api-reference/core.md), e.g. 220000+0100 for 22:00 at UTC+1.
func TimeWindow() Check {
	return stringCheck("time_window", "a time of day HHMMSS followed by a UTC offset +HHMM or -HHMM, such as 220000+0100", func(s string) string {
		m := timeWindowRE.FindStringSubmatch(s)
		if m == nil {
			return "is not a time of the form HHMMSS+ZONE, such as 220000+0100 for 22:00 at UTC+1."
		}
		n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
		switch {
		case n(1) > 23:
			return fmt.Sprintf("has hour %s; hours run from 00 to 23.", m[1])
		case n(2) > 59:
			return fmt.Sprintf("has minute %s; minutes run from 00 to 59.", m[2])
		case n(3) > 59:
			return fmt.Sprintf("has second %s; seconds run from 00 to 59.", m[3])
		case n(6) > 59 || n(5)*60+n(6) > 14*60:
			return fmt.Sprintf("has the UTC offset %s%s%s, which does not exist.", m[4], m[5], m[6])
		}
		return ""
	})
}

// NotEmpty demands a string with more than white space, or a list, set or map with at least one
// element, for values Gardener cannot work without (e.g. the virtual garden's DNS domains).
func NotEmpty() Check {
	return Check{Name: "not_empty", Describe: "not empty", Func: func(v cty.Value) string {
		v, _, ok := checkValue(v)
		if !ok {
			return ""
		}
		t := v.Type()
		switch {
		case t == cty.String:
			if strings.TrimSpace(v.AsString()) == "" {
				return "The value must not be empty."
			}
		case t.IsListType() || t.IsSetType() || t.IsTupleType():
			if v.LengthInt() == 0 {
				return "The list must contain at least one element."
			}
		case t.IsMapType() || t.IsObjectType():
			if v.LengthInt() == 0 {
				return "The map must contain at least one entry."
			}
		}
		return ""
	}}
}

// OneOf restricts a string, or every element of a list of strings, to a closed set. Attributes of
// type string use Attribute.AllowedValues instead; OneOf covers lists such as IP families.
func OneOf(values ...string) Check {
	allowed := append([]string(nil), values...)
	problem := func(s string) string {
		for _, a := range allowed {
			if s == a {
				return ""
			}
		}
		for _, a := range allowed {
			if strings.EqualFold(s, a) {
				return fmt.Sprintf("is not allowed; did you mean %q?", a)
			}
		}
		return "is not one of " + strings.Join(allowed, ", ") + "."
	}
	str := stringCheck("one_of", "one of "+strings.Join(allowed, ", ")+" (for a list, every element)", problem)
	list := listCheck("one_of", str.Describe, problem)
	return Check{Name: str.Name, Describe: str.Describe, Func: func(v cty.Value) string {
		if u, _, ok := checkValue(v); ok && u.Type() != cty.String && u.CanIterateElements() {
			return list.Func(v)
		}
		return str.Func(v)
	}}
}

// IntOrPercent demands a count such as 1 or a percentage such as 25%, the two spellings Kubernetes
// accepts for rolling-update budgets like a worker pool's max_surge.
func IntOrPercent() Check {
	return stringCheck("int_or_percent", "a whole number such as 1 or a percentage such as 25%", func(s string) string {
		digits, pct := strings.CutSuffix(s, "%")
		n, err := strconv.ParseUint(digits, 10, 31)
		if err != nil || digits == "" {
			return "is neither a whole number such as 1 nor a percentage such as 25%."
		}
		if pct && n > 100 {
			return "is more than 100%."
		}
		return ""
	})
}

// Quantity demands a Kubernetes resource quantity such as 10Gi or 500m, used for storage sizes.
func Quantity() Check {
	return stringCheck("quantity", "a Kubernetes quantity such as 10Gi", func(s string) string {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return "is not a Kubernetes quantity such as 10Gi or 500Mi."
		}
		if q.Sign() < 0 {
			return "is negative; a size must be zero or more."
		}
		return ""
	})
}

// cronParser reads the five-field cron expressions of Gardener's hibernation schedules
// (Gardener's HibernationSchedule in docs/api-reference/core.md, Gardener's "Shoot Hibernation"
// docs/usage/shoot/shoot_hibernate.md: "0 20 * * *") and the usual @daily-style shorthands.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron parses a cron expression as Cron checks it.
func ParseCron(s string) (cron.Schedule, error) {
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return nil, fmt.Errorf("names a time zone; set location instead")
	}
	if strings.HasPrefix(strings.TrimSpace(s), "@every") {
		// An interval counts from whenever it is asked, not from a time of day: no plan could
		// tell a trigger it carried out from the next one.
		return nil, fmt.Errorf("@every intervals are not supported; give times of day such as \"0 */2 * * *\"")
	}
	return cronParser.Parse(s)
}

// Cron demands a five-field cron expression (minute hour day-of-month month day-of-week), such
// as "0 20 * * 1-5".
func Cron() Check {
	return stringCheck("cron", `a cron expression of five fields (minute hour day-of-month month day-of-week), such as "0 20 * * 1-5"`, func(s string) string {
		if _, err := ParseCron(s); err != nil {
			return fmt.Sprintf("is not a cron expression of five fields (minute hour day-of-month month day-of-week), such as \"0 20 * * 1-5\": %v.", err)
		}
		return ""
	})
}

// TimeZone demands an IANA time zone name, such as Europe/Berlin.
func TimeZone() Check {
	return stringCheck("time_zone", "an IANA time zone name, such as Europe/Berlin", func(s string) string {
		if s == "" || strings.EqualFold(s, "local") {
			return "is not an IANA time zone name, such as Europe/Berlin or UTC."
		}
		if _, err := time.LoadLocation(s); err != nil {
			return "is not a time zone this system knows; use an IANA name such as Europe/Berlin or UTC."
		}
		return ""
	})
}
