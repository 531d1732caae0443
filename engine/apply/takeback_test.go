package apply

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// A write takes back the fields people changed in an object the landscape owns and nothing of a
// controller's: one controller's field keeps the whole write a conflict, strict conflicts and
// objects the landscape adopts keep people's fields conflicts too. On a real API server, whose
// field manager decides the conflicts.
func TestWriteTakesBackPeoplesFieldsOnly(t *testing.T) {
	ctx := context.Background()
	client, err := dynamic.NewForConfig(localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	cms := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	owned := &plan.ObjectChange{Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonDrift}}
	adopted := &plan.ObjectChange{Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonAdopt}}
	tests := []struct {
		name     string
		edits    map[string]string // field manager -> the data key it changes
		change   *plan.ObjectChange
		takeBack bool
		// conflicts are the managers the write fails on; none means it succeeds.
		conflicts []string
	}{
		{name: "kubectl set", edits: map[string]string{"kubectl-set": "a"}, change: owned, takeBack: true},
		{name: "kubectl edit and patch", edits: map[string]string{"kubectl-edit": "a", "kubectl-patch": "b"}, change: owned, takeBack: true},
		{name: "an object without managed fields", edits: map[string]string{"before-first-apply": "a"}, change: owned, takeBack: true},
		{name: "a controller", edits: map[string]string{"kube-controller-manager": "a"}, change: owned, takeBack: true, conflicts: []string{"kube-controller-manager"}},
		{name: "a person and a controller", edits: map[string]string{"kubectl-edit": "a", "vpa-updater": "b"}, change: owned, takeBack: true, conflicts: []string{"kubectl-edit", "vpa-updater"}},
		{name: "strict conflicts", edits: map[string]string{"kubectl-edit": "a"}, change: owned, conflicts: []string{"kubectl-edit"}},
		{name: "an object the landscape adopts", edits: map[string]string{"kubectl-edit": "a"}, change: adopted, takeBack: true, conflicts: []string{"kubectl-edit"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("take-back-%d", i)
			t.Cleanup(func() { _ = cms.Delete(ctx, name, metav1.DeleteOptions{}) })
			desired := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name, "namespace": "default"},
				"data":     map[string]any{"a": "1", "b": "1"},
			}}
			d := &plan.Desired{Cluster: "runtime", Object: desired, Resource: observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true}}
			e := &Executor{Clients: map[string]dynamic.Interface{"runtime": client}, TakeBack: tt.takeBack}
			_, err := e.write(ctx, d, &plan.ObjectChange{Action: plan.Create})
			require.NoError(t, err)

			want := map[string]string{"a": "1", "b": "1"}
			for manager, key := range tt.edits {
				if manager == "before-first-apply" {
					// Cleared managed fields: the server gives every field to before-first-apply
					// on the next apply.
					_, err = cms.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"managedFields":[{}]},"data":{"`+key+`":"2"}}`), metav1.PatchOptions{})
				} else {
					_, err = cms.Patch(ctx, name, types.MergePatchType, []byte(`{"data":{"`+key+`":"2"}}`), metav1.PatchOptions{FieldManager: manager})
				}
				require.NoError(t, err)
				want[key] = "2"
			}

			_, err = e.write(ctx, d, tt.change)
			got, gerr := cms.Get(ctx, name, metav1.GetOptions{})
			require.NoError(t, gerr)
			data, _, _ := unstructured.NestedStringMap(got.Object, "data")
			if len(tt.conflicts) > 0 {
				require.Error(t, err)
				assert.True(t, apierrors.IsConflict(err), "a conflict: %v", err)
				for _, m := range tt.conflicts {
					assert.Contains(t, err.Error(), fmt.Sprintf("%q", m))
				}
				assert.Equal(t, want, data, "nothing was taken")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"a": "1", "b": "1"}, data, "taken back")
			for _, f := range got.GetManagedFields() {
				for _, key := range tt.edits {
					if f.Manager != inventory.FieldManager {
						assert.NotContains(t, string(f.FieldsV1.Raw), `"f:`+key+`"`, "%s does not own %s any more", f.Manager, key)
					}
				}
			}
		})
	}
}

// takeBack relies on this: a resourceVersion in an applied configuration is a precondition, also
// of a forced apply, so that the write it forces takes exactly the fields judged at that version.
func TestForcedApplyAtAnOldResourceVersionFails(t *testing.T) {
	ctx := context.Background()
	client, err := dynamic.NewForConfig(localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	cms := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	const name = "take-back-precondition"
	t.Cleanup(func() { _ = cms.Delete(ctx, name, metav1.DeleteOptions{}) })
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"data":     map[string]any{"a": "1"},
	}}
	first, err := cms.Apply(ctx, name, cm, metav1.ApplyOptions{FieldManager: inventory.FieldManager})
	require.NoError(t, err)
	_, err = cms.Patch(ctx, name, types.MergePatchType, []byte(`{"data":{"a":"2"}}`), metav1.PatchOptions{FieldManager: "kube-controller-manager"})
	require.NoError(t, err)

	cm.SetResourceVersion(first.GetResourceVersion())
	_, err = cms.Apply(ctx, name, cm, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Empty(t, diff.ConflictManagers(err), "a failed precondition, not a field conflict: %v", err)
	got, err := cms.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "2", got.Object["data"].(map[string]any)["a"], "the controller's value stays")
}
