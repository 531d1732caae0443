package diff

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnionKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b map[string]any
		want []string
	}{
		{name: "both empty", want: []string{}},
		{name: "only the first", a: map[string]any{"b": 1, "a": 2}, want: []string{"a", "b"}},
		{name: "only the second", b: map[string]any{"z": nil, "y": nil}, want: []string{"y", "z"}},
		{name: "shared keys once", a: map[string]any{"spec": 1, "metadata": 2}, b: map[string]any{"status": 3, "spec": 4}, want: []string{"metadata", "spec", "status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, UnionKeys(tc.a, tc.b))
		})
	}
}
