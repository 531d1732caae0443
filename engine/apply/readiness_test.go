package apply

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/readiness"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

func readinessObject(apiVersion, kind, name, resourceVersion string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace("garden")
	u.SetName(name)
	u.SetResourceVersion(resourceVersion)
	return u
}

// typedReadiness watches only what the server's answer to the write does not already show ready,
// on the cluster's shared watches.
func TestTypedReadinessWatchesOnlyObjectsNotReadyInTheirWriteAnswer(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		configMaps: "ConfigMapList", deployments: "DeploymentList",
	})
	var listed []string
	client.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		listed = append(listed, a.GetResource().Resource)
		return false, nil, nil
	})
	watches := readiness.NewWatches(client)
	defer watches.Close()
	ready := typedReadiness(map[string]*readiness.Watches{"runtime": watches})
	resources := func(objs ...*unstructured.Unstructured) map[object.Ref]schema.GroupVersionResource {
		m := map[object.Ref]schema.GroupVersionResource{}
		for _, o := range objs {
			gvr := configMaps
			if o.GetKind() == "Deployment" {
				gvr = deployments
			}
			m[object.RefOf(o)] = gvr
		}
		return m
	}

	written := readinessObject("v1", "ConfigMap", "settings", "12")
	require.NoError(t, ready(context.Background(), "runtime", []*unstructured.Unstructured{written}, resources(written)))
	assert.Empty(t, listed, "a ConfigMap the server answered with is ready: nothing to watch")

	// A desired object (no resourceVersion: not the server's answer) is looked at, as is a
	// Deployment whose answer has no status yet.
	desired := readinessObject("v1", "ConfigMap", "unchanged", "")
	deployment := readinessObject("apps/v1", "Deployment", "gardenlet", "13")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := ready(ctx, "runtime", []*unstructured.Unstructured{desired, deployment}, resources(desired, deployment))
	require.Error(t, err, "neither exists in the cluster")
	assert.ElementsMatch(t, []string{"configmaps", "deployments"}, listed)
}
