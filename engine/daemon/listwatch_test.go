package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRenderedDifferently(t *testing.T) {
	shoot := func(rv string, generation int64, mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot"}}
		u.SetName("mine")
		u.SetResourceVersion(rv)
		u.SetGeneration(generation)
		if mutate != nil {
			mutate(u)
		}
		return u
	}
	now := metav1.NewTime(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	for name, tt := range map[string]struct {
		old, new *unstructured.Unstructured
		want     bool
	}{
		"the spec changed":             {shoot("1", 1, nil), shoot("2", 2, nil), true},
		"only the status changed":      {shoot("1", 1, nil), shoot("2", 1, func(u *unstructured.Unstructured) { u.Object["status"] = map[string]any{"x": "y"} }), false},
		"its deletion started":         {shoot("1", 1, nil), shoot("2", 1, func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) }), true},
		"a landscape label came":       {shoot("1", 1, nil), shoot("2", 1, func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"a": "b"}) }), true},
		"a resync of the same version": {shoot("1", 1, nil), shoot("1", 2, nil), false},
		"an annotation (not the spec)": {shoot("1", 1, nil), shoot("2", 1, func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"a": "b"}) }), false},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, renderedDifferently(tt.old, tt.new))
		})
	}
}
