package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
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

// A Shoot a shoot block declares that gardener-controller-manager or a user changed concerns
// that shoot alone; the engine's own write of it, and any change of a Shoot no block declares,
// concern the whole landscape (others render from the list of Shoots).
func TestListChangesOfDeclaredShootsAreTheShoots(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	ours := entry("gardener", metav1.ManagedFieldsOperationApply, "", t0, `{"f:spec":{"f:hibernation":{}}}`)
	shoot := func(rv string, declared bool, managers ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
		u := withManagers(rv, managers...)
		u.SetAPIVersion("core.gardener.cloud/v1beta1")
		u.SetKind("Shoot")
		if declared {
			u.SetLabels(map[string]string{inventory.LandscapeLabel: "land"})
			u.SetAnnotations(map[string]string{inventory.ComponentAnnotation: `shoot.fleet["a"]`})
		}
		return u
	}
	gcm := entry("gardener-controller-manager", metav1.ManagedFieldsOperationUpdate, "", t1, `{"f:spec":{"f:kubernetes":{"f:version":{}}}}`)
	f := &fleet{landscape: "land", instances: map[string]bool{`shoot.fleet["a"]`: true}}
	w := &listWatcher{instanceOf: f.instanceOf}
	tests := []struct {
		name     string
		old, new *unstructured.Unstructured
		want     string
	}{
		{"gardener-controller-manager raised a declared Shoot's version", shoot("1", true, ours), shoot("2", true, ours, gcm), `shoot.fleet["a"]`},
		{"the engine's own write of a declared Shoot", shoot("1", true, ours), shoot("2", true, entry("gardener", metav1.ManagedFieldsOperationApply, "", t1, `{"f:spec":{"f:hibernation":{},"f:purpose":{}}}`)), ""},
		{"a Shoot created through the API, changed by its user", shoot("1", false), shoot("2", false, gcm), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, w.attribute(tt.old, tt.new))
		})
	}
}
