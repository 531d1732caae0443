package golden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// The YAML of an object is the same on every run, also for keys that mix digits and letters,
// whose natural order (go.yaml.in/yaml/v2's) is not total: the reference annotations of the
// resource manager's garbage collector, which once came out in a different order from run to run.
func TestYAMLIsDeterministic(t *testing.T) {
	annotations := map[string]any{}
	for _, k := range []string{"secret-3ddd1800", "secret-17c26aa4", "secret-90bc7e4f", "secret-91bdc8f9", "secret-389fbba5",
		"secret-998b2966", "secret-3055c21f", "secret-5613e39f", "secret-69590970", "secret-a92da147", "secret-e01f5645", "secret-6d63aeb3"} {
		annotations[k] = "x"
	}
	objs := []render.Object{{Cluster: "c", Object: &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"annotations": annotations, "labels": map[string]any{"port-10": "a", "port-9": "b", "b": "c", "a": "d"}},
		"spec":     map[string]any{"list": []any{map[string]any{"z": int64(1), "a": 2.5, "m": true}}},
	}}}}
	first, err := YAML(objs)
	require.NoError(t, err)
	for range 100 {
		again, err := YAML(objs)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
	// The natural order where it is total: digit runs by value, letters after digits.
	assert.Contains(t, string(first), "labels:\n    a: d\n    b: c\n    port-9: b\n    port-10: a\n")
	assert.Contains(t, string(first), "- a: 2.5\n    m: true\n    z: 1\n")
}
