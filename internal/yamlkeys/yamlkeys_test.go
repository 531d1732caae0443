package yamlkeys

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// circle returns three keys that Less orders in a circle, if there are any.
func circle(keys []string) []string {
	for _, a := range keys {
		for _, b := range keys {
			for _, c := range keys {
				if Less(a, b) && Less(b, c) && Less(c, a) {
					return []string{a, b, c}
				}
			}
		}
	}
	return nil
}

// Where go-yaml's comparison orders keys totally, sigs.k8s.io/yaml writes them in the order Less
// gives, and SortStrings gives the same.
func TestLessIsGoYAMLs(t *testing.T) {
	keys := []string{"v1", "v1beta1", "v2", "a", "B", "-x", "0", "00", "01", "1", "10", "9", "a09", "a9", "a010", "x.y/1", "x.y/01", "é1", "e1"}
	require.Nil(t, circle(keys), "a total order on these keys")
	m := map[string]any{}
	for _, k := range keys {
		m[k] = 1
	}
	out, err := yaml.Marshal(m)
	require.NoError(t, err)
	var written []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, _, _ := strings.Cut(line, ": ")
		written = append(written, strings.Trim(k, `"'`))
	}
	require.Len(t, written, len(keys))
	for i := 1; i < len(written); i++ {
		assert.True(t, Less(written[i-1], written[i]), "%q before %q", written[i-1], written[i])
		assert.False(t, Less(written[i], written[i-1]), "%q after %q", written[i], written[i-1])
	}
	sorted := append([]string(nil), keys...)
	SortStrings(sorted)
	assert.Equal(t, written, sorted)
}

// Keys that compare in a circle are sorted one way whatever order they come in, in a mapping at
// any depth.
func TestSortIsTheSameFromAnyOrder(t *testing.T) {
	keys := []string{"secret-3055c21f", "secret-3ddd1800", "secret-389fbba5", "secret-0acc967c", "secret-17c26aa4", "v1beta1", "v2", "v10"}
	require.NotNil(t, circle(keys), "some of these keys compare in a circle")
	doc := func(order []int) yamlv2.MapSlice {
		inner := yamlv2.MapSlice{}
		for _, i := range order {
			inner = append(inner, yamlv2.MapItem{Key: keys[i], Value: i})
		}
		return yamlv2.MapSlice{{Key: "list", Value: []any{inner}}}
	}
	want := doc([]int{0, 1, 2, 3, 4, 5, 6, 7})
	Sort(want)
	for _, order := range [][]int{{7, 6, 5, 4, 3, 2, 1, 0}, {2, 0, 4, 1, 3, 7, 5, 6}, {1, 2, 0, 3, 6, 4, 7, 5}} {
		got := doc(order)
		Sort(got)
		assert.Equal(t, want, got, "from %v", order)
	}
	strs := append([]string(nil), keys...)
	SortStrings(strs)
	var fromDoc []string
	for _, item := range want[0].Value.([]any)[0].(yamlv2.MapSlice) {
		fromDoc = append(fromDoc, item.Key.(string))
	}
	assert.Equal(t, strs, fromDoc)
}
