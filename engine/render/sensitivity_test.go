package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSensitivityPlaces(t *testing.T) {
	var none *Sensitivity
	assert.False(t, none.Any(), "nil marks nothing")
	assert.Nil(t, none.Field("data"))
	assert.Nil(t, none.Item(0))

	s := none.Mark(func(s *Sensitivity) { s.Value = true }, "spec", "replicas")
	s.Mark(func(s *Sensitivity) { s.Key, s.Value = true, true }, "metadata", "labels", "secret-key")
	s.Mark(func(s *Sensitivity) { s.Elements = true }, "data")
	require.NotNil(t, s)
	assert.True(t, s.Path("spec", "replicas").Value)
	assert.Nil(t, s.Path("spec", "paused"), "an unmarked field")
	assert.True(t, s.Path("metadata", "labels").HasSensitiveKeys())
	assert.False(t, s.Path("metadata").HasSensitiveKeys())
	assert.True(t, s.Path("data", "anything").Value, "every value under Elements")
	assert.False(t, s.Path("data", "anything").Key, "but not its key")
	assert.True(t, s.Path("spec", "replicas", "inner", 3).Value, "everything inside a Value")
	assert.True(t, s.Any())
}

func TestMergeSensitivity(t *testing.T) {
	a := (*Sensitivity)(nil).Mark(func(s *Sensitivity) { s.Value = true }, "spec", "replicas")
	a.Strings = []string{"abc"}
	b := (*Sensitivity)(nil).Mark(func(s *Sensitivity) { s.Elements = true }, "data")
	b.Mark(func(s *Sensitivity) { s.Key = true }, "spec", "selector")
	b.Strings = []string{"abc", "xyz"}
	m := MergeSensitivity(a, b)
	assert.True(t, m.Path("spec", "replicas").Value)
	assert.True(t, m.Path("spec", "selector").Key)
	assert.True(t, m.Field("data").Elements)
	assert.Equal(t, []string{"abc", "xyz"}, m.Strings)
	assert.Nil(t, a.Field("data"), "the inputs stay as they were")
	assert.Nil(t, MergeSensitivity(nil, nil))
	assert.True(t, MergeSensitivity(a, nil).Path("spec", "replicas").Value, "one side alone")
}

func TestValuesOnly(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "ns", "labels": map[string]any{"a": "b"}},
		"data":     map[string]any{"k": "v"},
	}
	s := ValuesOnly(obj)
	assert.Nil(t, s.Field("apiVersion"))
	assert.Nil(t, s.Path("metadata", "name"), "the identity stays")
	assert.Nil(t, s.Path("metadata", "namespace"))
	assert.True(t, s.Path("metadata", "labels", "a").Value)
	assert.False(t, s.Path("metadata", "labels", "a").Key, "keys stay")
	assert.True(t, s.Path("data", "k").Value)
}
