package rendering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/render"
)

// A composite's HoldWhile conditions decide for all its parts: their window is kept only while
// the live object exists with the field's value, so that a shoot still being created and a
// hibernation change roll out at once (engine/plan then holds back a kept window's changes,
// creations included).
func TestWindowHoldWhile(t *testing.T) {
	shoot := func(hibernation any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "metadata": map[string]any{"name": "dev", "namespace": "garden-local"}}}
		if hibernation != nil {
			u.Object["spec"] = map[string]any{"hibernation": map[string]any{"enabled": hibernation}}
		}
		return u
	}
	cond := render.LiveCondition{Ref: render.LiveRef{Cluster: "runtime", Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots", Namespace: "garden-local", Name: "dev", Paths: []string{"spec.hibernation.enabled"}}, Value: "false", Default: "false"}
	tests := []struct {
		name string
		live *unstructured.Unstructured
		want bool
	}{
		{"no Shoot yet", nil, false},
		{"field absent counts as the default", shoot(nil), true},
		{"same hibernation", shoot(false), true},
		{"hibernation changes", shoot(true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			window := &render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000", HoldWhile: []render.LiveCondition{cond}}
			r, err := renderCompositeWith(t, func(r *Renderer) {
				r.Get = func(cty.Value, schema.GroupVersionResource, string, string) (*unstructured.Unstructured, error) {
					return tt.live, nil
				}
			}, []render.Component{{Name: "worker", Window: window, Objects: []render.Object{configMap("w", nil)}}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Rendered["garden.local.worker"].Window != nil)
		})
	}
}
