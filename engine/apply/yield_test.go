package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// A field the engine yields (render.Object.Yield) is never taken back from the manager that
// changed it between the plan's reading and the apply's writing, while the other fields are
// forced as usual: the write that conflicts is made again with the field as it is now. This is
// a Shoot's spec.hibernation.enabled flipped by gardener-controller-manager while a cycle that
// read it before applies.
func TestApplyYieldsFieldsAnotherManagerDecides(t *testing.T) {
	ctx := context.Background()
	client, err := dynamic.NewForConfig(localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cms := client.Resource(gvr).Namespace("default")
	cm := func(decided, owned string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "yield-test", "namespace": "default"},
			"data":     map[string]any{"decided": decided, "owned": owned},
		}}
	}
	t.Cleanup(func() { _ = cms.Delete(ctx, "yield-test", metav1.DeleteOptions{}) })
	e := &Executor{Clients: map[string]dynamic.Interface{"runtime": client}, ForceConflicts: true}
	write := func(obj *unstructured.Unstructured) {
		t.Helper()
		_, err := e.write(ctx, &plan.Desired{Cluster: "runtime", Object: obj, Resource: observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true}, Yield: []string{"data.decided"}}, nil)
		require.NoError(t, err)
	}
	write(cm("false", "a"))

	// Another manager (gardener-controller-manager) changes both fields by a merge patch.
	patch := []byte(`{"data":{"decided":"true","owned":"changed"}}`)
	_, err = cms.Patch(ctx, "yield-test", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "gardener-controller-manager"})
	require.NoError(t, err)

	// The engine applies what it planned before: the yielded field stays as the other manager
	// set it, the other is taken back.
	write(cm("false", "a"))
	got, err := cms.Get(ctx, "yield-test", metav1.GetOptions{})
	require.NoError(t, err)
	data, _, _ := unstructured.NestedStringMap(got.Object, "data")
	assert.Equal(t, map[string]string{"decided": "true", "owned": "a"}, data)
	for _, f := range got.GetManagedFields() {
		if f.Manager == inventory.FieldManager {
			assert.Contains(t, string(f.FieldsV1.Raw), `"f:decided"`, "the engine co-owns the field at its current value")
		}
	}
}
