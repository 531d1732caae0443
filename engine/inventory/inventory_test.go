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
	require.NoError(t, Stamp(u, "local", `shoot.local["a"]`, nil))
	assert.Equal(t, map[string]string{"app": "x", LandscapeLabel: "local"}, u.GetLabels())
	assert.Equal(t, `shoot.local["a"]`, Component(u))
	h := AppliedHash(u)
	assert.Len(t, h, 64)

	// Stamping again is idempotent: the hash excludes itself.
	require.NoError(t, Stamp(u, "local", `shoot.local["a"]`, nil))
	assert.Equal(t, h, AppliedHash(u))
	again, err := Hash(u, nil)
	require.NoError(t, err)
	assert.Equal(t, h, again)

	// A different object hashes differently.
	other := configMap("v2")
	require.NoError(t, Stamp(other, "local", `shoot.local["a"]`, nil))
	assert.NotEqual(t, h, AppliedHash(other))
}

func TestStampHashesWithoutSecrets(t *testing.T) {
	redact := func(obj map[string]any) { obj["data"] = map[string]any{"k": "(redacted)"} }
	a, b := configMap("secret-1"), configMap("secret-2")
	require.NoError(t, Stamp(a, "local", "component.manifests.a", redact))
	require.NoError(t, Stamp(b, "local", "component.manifests.a", redact))
	assert.Equal(t, AppliedHash(a), AppliedHash(b), "the hash does not depend on secret values")
	assert.Equal(t, "secret-1", a.Object["data"].(map[string]any)["k"], "the object keeps its values")
}

func TestStampRefusesNonStringLabels(t *testing.T) {
	u := configMap("v")
	u.Object["metadata"].(map[string]any)["labels"] = map[string]any{"app": "a", "v": int64(1)}
	err := Stamp(u, "local", "component.manifests.a", nil)
	assert.ErrorContains(t, err, "metadata.labels[v] must be a string, not int64")
}

func TestValidateLandscapeName(t *testing.T) {
	assert.NoError(t, ValidateLandscapeName("local"))
	assert.NoError(t, ValidateLandscapeName("prod.eu-1"))
	assert.Error(t, ValidateLandscapeName(""))
	assert.Error(t, ValidateLandscapeName("with space"))
	assert.Error(t, ValidateLandscapeName("-leading"))
	assert.Equal(t, "declarative-gardener.io/landscape=local", Selector("local"))
}
