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

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// releaseRecorder records what a component's apply reports to the state.
type releaseRecorder struct {
	applied []AppliedObject
	deleted []plan.ObjectChange
}

func (r *releaseRecorder) Intent(context.Context, string, []*plan.Desired, []*plan.ObjectChange) error {
	return nil
}

func (r *releaseRecorder) Applied(_ context.Context, _ string, applied []AppliedObject, deleted []plan.ObjectChange) error {
	r.applied, r.deleted = applied, deleted
	return nil
}

// A released object keeps everything but the engine's label and annotations, and the state
// forgets it: a project namespace an earlier version applied keeps the project labels
// gardener-controller-manager demands.
func TestReleaseRemovesOnlyTheEnginesMarkings(t *testing.T) {
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{
			"name": "garden-local", "resourceVersion": "7",
			"labels": map[string]any{"declarative-gardener.io/landscape": "local", "gardener.cloud/role": "project", "project.gardener.cloud/name": "local"},
			"annotations": map[string]any{
				"declarative-gardener.io/component": "component.project.local", "declarative-gardener.io/config-hash": "abc",
				"namespace.gardener.cloud/keep-after-project-deletion": "true",
			},
		},
	}}
	client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), ns)
	rec := &releaseRecorder{}
	e := &Executor{Clients: map[string]dynamic.Interface{"virtual": client}, Recorder: rec}
	e.WithResources(func(string, schema.GroupKind) (schema.GroupVersionResource, bool) { return namespaces, true })
	change := &plan.ObjectChange{
		Cluster: "virtual", APIVersion: "v1", Ref: object.RefOf(ns), Action: plan.Update,
		Reason: plan.Reason{Kind: plan.ReasonReleased, Detail: "gardener-controller-manager"}, ResourceVersion: "7",
	}
	require.NoError(t, e.Apply(context.Background(), &plan.Component{Address: "component.project.local", Objects: []*plan.ObjectChange{change}}))

	got, err := client.Resource(namespaces).Get(context.Background(), "garden-local", metav1.GetOptions{})
	require.NoError(t, err, "a released object is not deleted")
	assert.Equal(t, map[string]string{"gardener.cloud/role": "project", "project.gardener.cloud/name": "local"}, got.GetLabels())
	assert.Equal(t, map[string]string{"namespace.gardener.cloud/keep-after-project-deletion": "true"}, got.GetAnnotations())
	assert.Empty(t, rec.applied)
	assert.Equal(t, []plan.ObjectChange{*change}, rec.deleted, "the state forgets it")

	// Gone meanwhile: nothing to release, and the state forgets it all the same.
	require.NoError(t, client.Resource(namespaces).Delete(context.Background(), "garden-local", metav1.DeleteOptions{}))
	require.NoError(t, e.Apply(context.Background(), &plan.Component{Address: "component.project.local", Objects: []*plan.ObjectChange{change}}))
	assert.Equal(t, []plan.ObjectChange{*change}, rec.deleted)
}
