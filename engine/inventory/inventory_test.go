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

// The lineage is bookkeeping of the state, not configuration: a plan made before the state has a
// lineage and the apply that labels the objects with it hash alike, so a saved plan stays valid.
func TestHashLeavesTheLineageOut(t *testing.T) {
	u := configMap("v")
	require.NoError(t, Stamp(u, "local", "component.manifests.a", nil))
	before := AppliedHash(u)
	SetLineage(u, "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11")
	assert.Equal(t, "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11", Lineage(u))
	assert.Equal(t, map[string]string{"app": "x", LandscapeLabel: "local", LineageLabel: "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11"}, u.GetLabels())
	after, err := Hash(u, nil)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	require.NoError(t, Stamp(u, "local", "component.manifests.a", nil))
	assert.Equal(t, before, AppliedHash(u), "stamping a labelled object again keeps its hash")
	assert.Equal(t, "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11", Lineage(u), "and its lineage")
	assert.Empty(t, Lineage(configMap("v")))
}

// Releasing an object removes every marking, the lineage included.
func TestMarkingsAndUnmarkPatchIncludeTheLineage(t *testing.T) {
	u := configMap("v")
	require.NoError(t, Stamp(u, "local", "component.manifests.a", nil))
	SetLineage(u, "l-1")
	assert.Equal(t, map[string]string{
		".metadata.labels[" + LandscapeLabel + "]":            "local",
		".metadata.labels[" + LineageLabel + "]":              "l-1",
		".metadata.annotations[" + ComponentAnnotation + "]":  "component.manifests.a",
		".metadata.annotations[" + ConfigHashAnnotation + "]": AppliedHash(u),
	}, Markings(u))
	assert.JSONEq(t, `{"metadata":{"labels":{"declarative-gardener.io/landscape":null,"declarative-gardener.io/lineage":null},
		"annotations":{"declarative-gardener.io/component":null,"declarative-gardener.io/config-hash":null}}}`, string(UnmarkPatch()))
}

func TestValidateLineage(t *testing.T) {
	assert.NoError(t, ValidateLineage("6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11"))
	assert.Error(t, ValidateLineage(""))
	assert.Error(t, ValidateLineage("not a lineage"))
}

// TestHashWithoutRedactCopiesNothing: without redact, Hash leaves the hash annotation and the
// lineage label out through copies of the maps on the way to them only; the hash is the one a
// deep copy gives, and the object is as it was.
func TestHashWithoutRedactCopiesNothing(t *testing.T) {
	withMarks := configMap("v1")
	withMarks.SetLabels(map[string]string{"app": "x", LineageLabel: "0d6f"})
	withMarks.SetAnnotations(map[string]string{ConfigHashAnnotation: "abc", ComponentAnnotation: "component.manifests.a"})
	emptyMarks := configMap("v1")
	emptyMarks.SetAnnotations(map[string]string{ConfigHashAnnotation: ""})
	onlyMarks := configMap("v1")
	onlyMarks.SetLabels(map[string]string{LineageLabel: "0d6f"})
	onlyMarks.SetAnnotations(map[string]string{ConfigHashAnnotation: "abc"})
	cases := map[string]*unstructured.Unstructured{
		"no marks":                       configMap("v1"),
		"hash annotation and lineage":    withMarks,
		"an empty hash annotation stays": emptyMarks,
		"nothing left but empty maps":    onlyMarks,
		"no metadata":                    {Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}},
	}
	for name, u := range cases {
		t.Run(name, func(t *testing.T) {
			before := u.DeepCopy()
			want, err := Hash(u, func(map[string]any) {}) // the deep copy's way
			require.NoError(t, err)
			got, err := Hash(u, nil)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, before.Object, u.Object, "the object is unchanged")
		})
	}
}
