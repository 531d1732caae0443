package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestYieldToLive(t *testing.T) {
	shoot := func(enabled bool, k8s, image string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
			"hibernation": map[string]any{"enabled": enabled},
			"kubernetes":  map[string]any{"version": k8s},
			"provider": map[string]any{"workers": []any{
				map[string]any{"name": "a", "machine": map[string]any{"image": map[string]any{"name": "gl", "version": image}}},
				map[string]any{"name": "b", "machine": map[string]any{"image": map[string]any{"name": "gl", "version": "1.0.0"}}},
			}},
		}}}
	}
	desired := shoot(false, "1.31.1", "1.0.0")
	live := shoot(true, "1.31.3", "1.0.2")
	unstructured.RemoveNestedField(live.Object, "spec", "kubernetes", "version")
	YieldToLive(desired, live, []string{
		"spec.hibernation.enabled", "spec.kubernetes.version",
		"spec.provider.workers[name=a].machine.image.version", "spec.provider.workers[name=c].machine.image.version",
	})
	enabled, _, _ := unstructured.NestedBool(desired.Object, "spec", "hibernation", "enabled")
	assert.True(t, enabled, "the live value")
	_, found, _ := unstructured.NestedString(desired.Object, "spec", "kubernetes", "version")
	assert.False(t, found, "a field the live object lacks is left out")
	workers, _, _ := unstructured.NestedSlice(desired.Object, "spec", "provider", "workers")
	assert.Equal(t, "1.0.2", workers[0].(map[string]any)["machine"].(map[string]any)["image"].(map[string]any)["version"], "pool a's live image")
	assert.Equal(t, "1.0.0", workers[1].(map[string]any)["machine"].(map[string]any)["image"].(map[string]any)["version"], "pool b is not named")
}
