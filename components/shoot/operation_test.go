package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// liveShootAsking is the live Shoot dev with gardener.cloud/operation set to op.
func liveShootAsking(op string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot"}}
	u.SetName("dev")
	u.SetNamespace("garden-local")
	u.SetAnnotations(map[string]string{AnnotationOperation: op})
	return u
}

// The reconcile operation rolls out a confined shoot's held changes outside the window
// (Gardener's "Trigger Shoot Operations Through Annotations"
// docs/usage/shoot-operations/shoot_operations.md); the Shoot's rendering consumes the annotation,
// which apply then removes. The maintain operation is gardener-controller-manager's: the
// rendering rolls the held changes out with the maintenance and leaves the annotation to it.
func TestOperationAnnotations(t *testing.T) {
	outside := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	confined := func(v *Values) {
		withWindow(v)
		v.Maintenance.ConfineSpecUpdateRollout = true
	}
	for _, tc := range []struct {
		name       string
		live       *unstructured.Unstructured
		held       bool
		consumed   map[string]string
		wantNotice string
	}{
		{name: "no operation: held for the window", live: liveShootAsking(""), held: true},
		{
			name: "reconcile: rolled out now", live: liveShootAsking(OperationReconcile),
			consumed:   map[string]string{AnnotationOperation: OperationReconcile},
			wantNotice: "shoot dev: gardener.cloud/operation=reconcile: the changes held for the maintenance window roll out now; the annotation is removed",
		},
		{
			name: "maintain: gardener-controller-manager's to carry out and remove; the held changes roll out with it", live: liveShootAsking(OperationMaintain),
			wantNotice: "shoot dev: gardener.cloud/operation=maintain: gardener-controller-manager maintains the shoot now, outside its maintenance window if need be, and removes the annotation; the changes held for the window roll out with it",
		},
		{name: "an operation of gardenlet's is left to it", live: liveShootAsking("rotate-ssh-keypair"), held: true},
		{
			name: "a Shoot in deletion is left alone", held: true,
			live: func() *unstructured.Unstructured {
				u := liveShootAsking(OperationReconcile)
				now := metav1.Now()
				u.SetDeletionTimestamp(&now)
				return u
			}(),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := newBuilder("dev", values(confined))
			require.NoError(t, err)
			out, err := b.render(render.Input{Now: outside, Observe: observingByName(map[string]*unstructured.Unstructured{"shoots/garden-local/dev": tc.live})})
			require.NoError(t, err)
			for _, p := range out.Components {
				if p.Name == "kube_controller_manager" {
					assert.Equal(t, tc.held, p.Window != nil, "held for the window")
				}
				if p.Name == "shoot" {
					require.Len(t, p.Objects, 1)
					assert.Equal(t, tc.consumed, p.Objects[0].Consume)
					assert.NotContains(t, p.Objects[0].Object.GetAnnotations(), AnnotationOperation, "the landscape never sets it itself")
				}
			}
			if tc.wantNotice != "" {
				assert.Contains(t, out.Notices, tc.wantNotice)
			}
		})
	}

	// Without confinement the reconcile operation is consumed by the apply all the same.
	b, err := newBuilder("dev", values(withWindow))
	require.NoError(t, err)
	out, err := b.render(render.Input{Now: outside, Observe: observingByName(map[string]*unstructured.Unstructured{"shoots/garden-local/dev": liveShootAsking(OperationReconcile)})})
	require.NoError(t, err)
	assert.Contains(t, out.Notices, "shoot dev: gardener.cloud/operation=reconcile: reconciled by this apply; the annotation is removed")
}
