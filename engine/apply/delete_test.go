package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

var hpas = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}

// A delete whose resourceVersion precondition fails because a controller wrote the object's
// status (same UID and generation) deletes the object at its new version; a changed spec (new
// generation) is reported instead of deleted.
func TestDeleteToleratesStatusWrites(t *testing.T) {
	for _, tc := range []struct {
		name          string
		generation    int64
		labels        map[string]string
		uid           string
		wantDeleted   bool
		wantErrSubstr string
	}{
		{"status written since the plan", 3, nil, "u1", true, ""},
		{"spec changed since the plan", 4, nil, "u1", false, "delete: "},
		{"labels changed since the plan", 3, map[string]string{"declarative-gardener.io/landscape": "other"}, "u1", false, "delete: "},
		{"another object of the same name", 3, nil, "u2", false, "delete: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
				"metadata": map[string]any{"name": "kube-apiserver", "namespace": "shoot", "uid": "u1", "resourceVersion": "10", "generation": int64(3)},
			}}
			current := seen.DeepCopy()
			current.SetResourceVersion("11")
			current.SetGeneration(tc.generation)
			current.SetLabels(tc.labels)
			current.SetUID(types.UID(tc.uid))
			client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), current)
			var deletes []string
			client.PrependReactor("delete", "horizontalpodautoscalers", func(a k8stesting.Action) (bool, runtime.Object, error) {
				d := a.(k8stesting.DeleteAction)
				rv := *d.GetDeleteOptions().Preconditions.ResourceVersion
				deletes = append(deletes, rv)
				if rv != "11" {
					return true, nil, apierrors.NewConflict(hpas.GroupResource(), "kube-apiserver", nil)
				}
				return false, nil, nil
			})
			ref := object.RefOf(seen)
			e := &Executor{
				Clients: map[string]dynamic.Interface{"runtime": client},
				Live:    func(string, object.Ref) *unstructured.Unstructured { return seen },
			}
			e.WithResources(func(string, schema.GroupKind) (schema.GroupVersionResource, bool) { return hpas, true })
			err := e.delete(context.Background(), &plan.ObjectChange{Cluster: "runtime", APIVersion: "autoscaling/v2", Ref: ref, Action: plan.Delete, ResourceVersion: "10"})
			_, getErr := client.Resource(hpas).Namespace("shoot").Get(context.Background(), "kube-apiserver", metav1.GetOptions{})
			if tc.wantDeleted {
				require.NoError(t, err)
				assert.True(t, apierrors.IsNotFound(getErr), "deleted")
				assert.Equal(t, []string{"10", "11"}, deletes)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErrSubstr)
				assert.NoError(t, getErr, "a changed object is not deleted")
			}
		})
	}
}

// The state records a part's deletion dependencies where its composite set them: the other
// dependencies stay, the sibling ones are replaced.
func TestDeletionDependencies(t *testing.T) {
	c := &plan.Component{Address: "shoot.a.etcd_main", DependsOn: []string{"seed.local", "shoot.a.kube_apiserver", "shoot.a.namespace"}}
	assert.Equal(t, c.DependsOn, deletionDependencies(c, nil, nil))
	assert.Equal(t, c.DependsOn, deletionDependencies(c, &rendering.Rendered{DependsOn: []config.InstanceAddress{"shoot.a.kube_apiserver", "shoot.a.namespace"}}, nil))
	rd := &rendering.Rendered{
		DependsOn:         []config.InstanceAddress{"shoot.a.kube_apiserver", "shoot.a.namespace"},
		DeletionDependsOn: []config.InstanceAddress{"shoot.a.namespace"},
	}
	assert.Equal(t, []string{"seed.local", "shoot.a.namespace"}, deletionDependencies(c, rd, nil))
}
