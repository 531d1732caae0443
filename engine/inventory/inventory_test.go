package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func configMap(data string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "default", "labels": map[string]any{"app": "x"}},
		"data":     map[string]any{"k": data},
	}}
}

func TestStamp(t *testing.T) {
	u := configMap("v1")
	require.NoError(t, Stamp(u, "local", `shoot.local["a"]`))
	assert.Equal(t, map[string]string{"app": "x", LandscapeLabel: "local"}, u.GetLabels())
	assert.Equal(t, `shoot.local["a"]`, Component(u))
	h := AppliedHash(u)
	assert.Len(t, h, 64)

	// Stamping again is idempotent: the hash excludes itself.
	require.NoError(t, Stamp(u, "local", `shoot.local["a"]`))
	assert.Equal(t, h, AppliedHash(u))
	again, err := Hash(u)
	require.NoError(t, err)
	assert.Equal(t, h, again)

	// A different object hashes differently.
	other := configMap("v2")
	require.NoError(t, Stamp(other, "local", `shoot.local["a"]`))
	assert.NotEqual(t, h, AppliedHash(other))
}

func TestValidateLandscapeName(t *testing.T) {
	assert.NoError(t, ValidateLandscapeName("local"))
	assert.NoError(t, ValidateLandscapeName("prod.eu-1"))
	assert.Error(t, ValidateLandscapeName(""))
	assert.Error(t, ValidateLandscapeName("with space"))
	assert.Error(t, ValidateLandscapeName("-leading"))
	assert.Equal(t, "declarative-gardener.io/landscape=local", Selector("local"))
}
