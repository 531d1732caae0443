package diff

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIndexOutsideQuotes(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		from int
		c    byte
		want int
	}{
		{name: "plain", s: `a,b`, c: ',', want: 1},
		{name: "none", s: `ab`, c: ',', want: -1},
		{name: "inside quotes skipped", s: `"a,b",c`, c: ',', want: 5},
		{name: "escaped quote stays inside", s: `"a\",b",c`, c: ',', want: 7},
		{name: "from skips earlier ones", s: `],]`, from: 1, c: ']', want: 2},
		{name: "unterminated quote", s: `"a,b`, c: ',', want: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, indexOutsideQuotes(tc.s, tc.from, tc.c))
		})
	}
}

func TestClosingBracket(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{s: `[0]`, want: 2},
		{s: `[name="a]b"].image`, want: 11},
		{s: `[="x\"]"]`, want: 8},
		{s: `[unclosed`, want: 8},
	} {
		t.Run(tc.s, func(t *testing.T) {
			assert.Equal(t, tc.want, closingBracket(tc.s))
		})
	}
}

func TestSplitKeys(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want []string
	}{
		{s: `name="nginx"`, want: []string{`name="nginx"`}},
		{s: `name="a,b",port=80`, want: []string{`name="a,b"`, `port=80`}},
		{s: `containerPort=80,protocol="TCP"`, want: []string{`containerPort=80`, `protocol="TCP"`}},
		{s: `k="a\",b",v=1`, want: []string{`k="a\",b"`, `v=1`}},
		{s: ``, want: []string{``}},
	} {
		t.Run(tc.s, func(t *testing.T) {
			assert.Equal(t, tc.want, splitKeys(tc.s))
		})
	}
}
