package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/zclconf/go-cty/cty"
)

func checkStrings(values ...string) cty.Value {
	if len(values) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	out := make([]cty.Value, len(values))
	for i, v := range values {
		out[i] = cty.StringVal(v)
	}
	return cty.ListVal(out)
}

// checkCase is one value and what the check must say about it: "" for acceptance, otherwise
// fragments the message must contain.
type checkCase struct {
	name  string
	value cty.Value
	want  []string
}

func runCheckCases(t *testing.T, c Check, cases []checkCase) {
	t.Helper()
	assert.NotEmpty(t, c.Name)
	assert.NotEmpty(t, c.Describe)
	for _, tc := range cases {
		t.Run(c.Name+"/"+tc.name, func(t *testing.T) {
			got := c.Func(tc.value)
			if len(tc.want) == 0 {
				assert.Empty(t, got)
				return
			}
			if assert.NotEmpty(t, got) {
				for _, w := range tc.want {
					assert.Contains(t, got, w)
				}
				assertCheckSentence(t, got)
			}
		})
	}
}

// assertCheckSentence holds messages to the style diagnostics need: a capital start and a full stop
// (or a question mark for a suggestion).
func assertCheckSentence(t *testing.T, msg string) {
	t.Helper()
	first := msg[0]
	assert.True(t, first == '"' || (first >= 'A' && first <= 'Z'), "message starts like a sentence: %s", msg)
	assert.True(t, strings.HasSuffix(msg, ".") || strings.HasSuffix(msg, "?"), "message ends like a sentence: %s", msg)
}

func TestCIDR(t *testing.T) {
	runCheckCases(t, CIDR(), []checkCase{
		{"ipv4", cty.StringVal("10.0.0.0/16"), nil},
		{"ipv6", cty.StringVal("fd00:10::/64"), nil},
		{"host route", cty.StringVal("192.168.1.7/32"), nil},
		{"host bits", cty.StringVal("10.0.0.1/16"), []string{`"10.0.0.1/16"`, "did you mean 10.0.0.0/16?"}},
		{"ipv6 host bits", cty.StringVal("fd00::1/64"), []string{"fd00::/64"}},
		{"no prefix length", cty.StringVal("10.0.0.0"), []string{"is not a CIDR"}},
		{"garbage", cty.StringVal("ten"), []string{`"ten" is not a CIDR`}},
		{"unknown", cty.UnknownVal(cty.String), nil},
		{"null", cty.NullVal(cty.String), nil},
		{"sensitive", cty.StringVal("10.0.0.1/8").Mark("sensitive"), []string{"The sensitive value is invalid; it must be a network prefix"}},
		{"wrong type", cty.ListValEmpty(cty.String), []string{"must be a string"}},
	})
}

func TestCIDRList(t *testing.T) {
	runCheckCases(t, CIDRList(), []checkCase{
		{"fine", checkStrings("10.0.0.0/8", "100.64.0.0/13"), nil},
		{"empty", checkStrings(), nil},
		{"second bad", checkStrings("10.0.0.0/8", "100.64.0.1/13"), []string{"index 1", `"100.64.0.1/13"`, "100.64.0.0/13"}},
		{"unknown element", cty.ListVal([]cty.Value{cty.UnknownVal(cty.String), cty.StringVal("10.0.0.0/8")}), nil},
		{"null element", cty.ListVal([]cty.Value{cty.NullVal(cty.String)}), []string{"index 0 is null"}},
		{"tuple", cty.TupleVal([]cty.Value{cty.StringVal("x")}), []string{"index 0"}},
		{"sensitive", checkStrings("10.0.0.0/8", "10.0.0.1/8").Mark("sensitive"), []string{"index 1 of the sensitive list"}},
		{"not a list", cty.StringVal("10.0.0.0/8"), []string{"must be a list"}},
	})
}

func TestKubernetesVersion(t *testing.T) {
	runCheckCases(t, KubernetesVersion(), []checkCase{
		{"full", cty.StringVal("1.31.1"), nil},
		{"zero patch", cty.StringVal("1.30.0"), nil},
		{"leading v", cty.StringVal("v1.31.1"), []string{`must not start with "v"`, "write 1.31.1"}},
		{"minor only", cty.StringVal("1.31"), []string{"lacks the patch", "1.31.0"}},
		{"leading zero", cty.StringVal("1.031.1"), []string{"MAJOR.MINOR.PATCH"}},
		{"pre-release", cty.StringVal("1.31.1-rc.1"), []string{"MAJOR.MINOR.PATCH"}},
		{"empty", cty.StringVal(""), []string{"MAJOR.MINOR.PATCH"}},
	})
}

func TestPositiveAndNonNegative(t *testing.T) {
	runCheckCases(t, Positive(), []checkCase{
		{"one", cty.NumberIntVal(1), nil},
		{"big", cty.NumberIntVal(1 << 40), nil},
		{"zero", cty.NumberIntVal(0), []string{"greater than zero", "it is 0"}},
		{"negative", cty.NumberIntVal(-3), []string{"it is -3"}},
		{"fraction", cty.NumberFloatVal(1.5), []string{"whole number", "1.5"}},
		{"unknown", cty.UnknownVal(cty.Number), nil},
		{"wrong type", cty.True, []string{"must be a number"}},
		{"sensitive", cty.NumberIntVal(-7).Mark("sensitive"), []string{"The sensitive value is invalid"}},
	})
	runCheckCases(t, NonNegative(), []checkCase{
		{"zero", cty.NumberIntVal(0), nil},
		{"three", cty.NumberIntVal(3), nil},
		{"negative", cty.NumberIntVal(-1), []string{"must not be negative", "-1"}},
		{"fraction", cty.NumberFloatVal(0.5), []string{"whole number"}},
	})
}

func TestRange(t *testing.T) {
	c := Range(1, 100)
	assert.Contains(t, c.Describe, "between 1 and 100")
	runCheckCases(t, c, []checkCase{
		{"low end", cty.NumberIntVal(1), nil},
		{"high end", cty.NumberIntVal(100), nil},
		{"fraction inside", cty.NumberFloatVal(2.5), nil},
		{"below", cty.NumberIntVal(0), []string{"between 1 and 100", "it is 0"}},
		{"above", cty.NumberIntVal(101), []string{"it is 101"}},
	})
	runCheckCases(t, Range(0, 0.5), []checkCase{
		{"ratio", cty.NumberFloatVal(0.25), nil},
		{"too big", cty.NumberFloatVal(0.75), []string{"between 0 and 0.5", "0.75"}},
	})
}

func TestDNSName(t *testing.T) {
	long := strings.Repeat("a", 64)
	runCheckCases(t, DNSName(), []checkCase{
		{"domain", cty.StringVal("ingress.local.seed"), nil},
		{"single label", cty.StringVal("localhost"), nil},
		{"digits and hyphens", cty.StringVal("a-1.b2.example.com"), nil},
		{"upper case", cty.StringVal("Ingress.example.com"), []string{`label "Ingress"`, "upper-case"}},
		{"underscore", cty.StringVal("my_domain.com"), []string{`"_"`}},
		{"leading hyphen", cty.StringVal("-a.com"), []string{"start and end"}},
		{"double dot", cty.StringVal("a..com"), []string{"empty label"}},
		{"trailing dot", cty.StringVal("a.com."), []string{"empty label"}},
		{"wildcard", cty.StringVal("*.example.com"), []string{`"*"`}},
		{"empty", cty.StringVal(""), []string{"empty"}},
		{"long label", cty.StringVal(long + ".com"), []string{"64 characters", "63"}},
		{"too long", cty.StringVal(strings.Repeat("abcdefghi.", 26)), []string{"more than the 253"}},
	})
	runCheckCases(t, DNSNameList(), []checkCase{
		{"fine", checkStrings("virtual-garden.local", "garden.example.com"), nil},
		{"bad", checkStrings("ok.com", "Bad.com"), []string{"index 1", "upper-case"}},
	})
}

func TestObjectName(t *testing.T) {
	runCheckCases(t, ObjectName(), []checkCase{
		{"secret", cty.StringVal("backup-local"), nil},
		{"dotted", cty.StringVal("internal-domain.local"), nil},
		{"upper", cty.StringVal("Backup"), []string{"not a valid Kubernetes object name", "upper-case"}},
		{"slash", cty.StringVal("garden/backup"), []string{`"/"`}},
	})
}

func TestDNSLabel(t *testing.T) {
	runCheckCases(t, DNSLabel(), []checkCase{
		{"fine", cty.StringVal("cert-manager"), nil},
		{"dot", cty.StringVal("a.b"), []string{`"."`}},
		{"too long", cty.StringVal(strings.Repeat("x", 64)), []string{"63"}},
		{"empty", cty.StringVal(""), []string{"empty"}},
	})
}

func TestDuration(t *testing.T) {
	runCheckCases(t, Duration(), []checkCase{
		{"minutes", cty.StringVal("5m"), nil},
		{"compound", cty.StringVal("1h30m"), nil},
		{"zero", cty.StringVal("0s"), nil},
		{"no unit", cty.StringVal("5"), []string{"is not a duration"}},
		{"days", cty.StringVal("2d"), []string{"is not a duration"}},
		{"negative", cty.StringVal("-5m"), []string{"negative"}},
	})
}

func TestTimestamp(t *testing.T) {
	runCheckCases(t, Timestamp(), []checkCase{
		{"utc", cty.StringVal("2026-12-24T18:00:00Z"), nil},
		{"offset", cty.StringVal("2026-12-24T19:00:00+01:00"), nil},
		{"no zone", cty.StringVal("2026-12-24T18:00:00"), []string{"RFC 3339"}},
		{"date only", cty.StringVal("2026-12-24"), []string{"RFC 3339"}},
		{"no date", cty.StringVal("18:00"), []string{"RFC 3339"}},
	})
}

func TestTimeWindow(t *testing.T) {
	runCheckCases(t, TimeWindow(), []checkCase{
		{"gardener example", cty.StringVal("220000+0100"), nil},
		{"utc", cty.StringVal("000000+0000"), nil},
		{"negative offset", cty.StringVal("233000-0530"), nil},
		{"max offset", cty.StringVal("120000+1400"), nil},
		{"colon", cty.StringVal("22:00:00+0100"), []string{"HHMMSS+ZONE"}},
		{"no zone", cty.StringVal("220000"), []string{"HHMMSS+ZONE"}},
		{"hour", cty.StringVal("250000+0100"), []string{"hour 25"}},
		{"minute", cty.StringVal("226000+0100"), []string{"minute 60"}},
		{"second", cty.StringVal("220060+0100"), []string{"second 60"}},
		{"offset", cty.StringVal("220000+1500"), []string{"+1500"}},
	})
}

func TestNotEmpty(t *testing.T) {
	runCheckCases(t, NotEmpty(), []checkCase{
		{"string", cty.StringVal("x"), nil},
		{"empty string", cty.StringVal(""), []string{"must not be empty"}},
		{"blank string", cty.StringVal("  "), []string{"must not be empty"}},
		{"list", checkStrings("a"), nil},
		{"empty list", checkStrings(), []string{"at least one element"}},
		{"empty set", cty.SetValEmpty(cty.String), []string{"at least one element"}},
		{"empty tuple", cty.EmptyTupleVal, []string{"at least one element"}},
		{"empty map", cty.MapValEmpty(cty.String), []string{"at least one entry"}},
		{"null", cty.NullVal(cty.List(cty.String)), nil},
	})
}

func TestOneOf(t *testing.T) {
	c := OneOf("IPv4", "IPv6")
	assert.Contains(t, c.Describe, "IPv4, IPv6")
	runCheckCases(t, c, []checkCase{
		{"string", cty.StringVal("IPv4"), nil},
		{"list", checkStrings("IPv4", "IPv6"), nil},
		{"bad string", cty.StringVal("IPv5"), []string{`"IPv5" is not one of IPv4, IPv6.`}},
		{"case", cty.StringVal("ipv6"), []string{`did you mean "IPv6"?`}},
		{"bad element", checkStrings("IPv4", "ipx"), []string{"index 1", "not one of"}},
	})
}

func TestIntOrPercent(t *testing.T) {
	runCheckCases(t, IntOrPercent(), []checkCase{
		{"count", cty.StringVal("1"), nil},
		{"zero", cty.StringVal("0"), nil},
		{"percent", cty.StringVal("25%"), nil},
		{"all", cty.StringVal("100%"), nil},
		{"over", cty.StringVal("120%"), []string{"more than 100%"}},
		{"negative", cty.StringVal("-1"), []string{"neither"}},
		{"word", cty.StringVal("some"), []string{"neither"}},
		{"percent only", cty.StringVal("%"), []string{"neither"}},
		{"number converts", cty.NumberIntVal(2), nil},
	})
}

func TestQuantity(t *testing.T) {
	runCheckCases(t, Quantity(), []checkCase{
		{"gibibytes", cty.StringVal("10Gi"), nil},
		{"plain", cty.StringVal("1000"), nil},
		{"unit typo", cty.StringVal("10GB"), []string{"not a Kubernetes quantity"}},
		{"negative", cty.StringVal("-1Gi"), []string{"negative"}},
	})
}

func TestSensitiveValuesAreNotRepeated(t *testing.T) {
	for _, c := range []Check{CIDR(), CIDRList(), Positive(), DNSName(), Duration(), OneOf("a")} {
		for _, v := range []cty.Value{cty.StringVal("s3cr3t"), checkStrings("s3cr3t"), cty.NumberIntVal(-424242)} {
			msg := c.Func(v.Mark("sensitive"))
			assert.NotContains(t, msg, "s3cr3t", c.Name)
			assert.NotContains(t, msg, "424242", c.Name)
		}
	}
}

func TestLongValuesAreShortened(t *testing.T) {
	long := strings.Repeat("x", 5000)
	msg := CIDR().Func(cty.StringVal(long))
	assert.Less(t, len(msg), 200, "the message must not repeat the whole value")
	assert.Contains(t, msg, "...")
}

func TestChecksAreIndependentCopies(t *testing.T) {
	a, b := CIDR(), CIDR()
	a.Describe = "changed"
	assert.NotEqual(t, a.Describe, b.Describe)
}
