package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// A release that adds an owner keeps the object's other owners, labels and annotations: a seed's
// namespace of an earlier version gets the Seed as its controller, which gardener-controller-manager
// requires before it syncs the garden's Secrets into it.
func TestReleaseAddsTheOwnerItsControllerNeeds(t *testing.T) {
	namespacesGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{
		"name":   "seed-local",
		"labels": map[string]any{"declarative-gardener.io/landscape": "local", "gardener.cloud/role": "seed"},
		"annotations": map[string]any{"declarative-gardener.io/component": "seed.local.seed_namespace",
			"declarative-gardener.io/config-hash": "abc", "note": "kept"},
		"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "other", "uid": "1"}},
	}}}
	client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), ns)
	e := (&Executor{Clients: map[string]dynamic.Interface{"virtual": client}}).WithResources(func(string, schema.GroupKind) (schema.GroupVersionResource, bool) {
		return namespacesGVR, true
	})
	seed := metav1.OwnerReference{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: "local", UID: "4c1f", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	release := &plan.ObjectChange{Cluster: "virtual", APIVersion: "v1", Ref: object.Ref{Kind: "Namespace", Name: "seed-local"}, Action: plan.Update,
		Reason: plan.Reason{Kind: plan.ReasonReleased, Detail: "gardener-controller-manager"}, OwnerReferences: []metav1.OwnerReference{seed}}
	require.NoError(t, e.release(context.Background(), release))

	got, err := client.Resource(namespacesGVR).Get(context.Background(), "seed-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"gardener.cloud/role": "seed"}, got.GetLabels())
	assert.Equal(t, map[string]string{"note": "kept"}, got.GetAnnotations())
	assert.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "1"}, seed}, got.GetOwnerReferences())

	// Released again: the owner is there once; gone: nothing to do.
	require.NoError(t, e.release(context.Background(), release))
	got, err = client.Resource(namespacesGVR).Get(context.Background(), "seed-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Len(t, got.GetOwnerReferences(), 2)
	gone := *release
	gone.Ref.Name = "gone"
	require.NoError(t, e.release(context.Background(), &gone))
}
