package autoscaler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestVertical(t *testing.T) {
	u := Vertical("garden", "x", map[string]string{"app": "x"}, "x-deploy",
		ContainerPolicy{Container: AllContainers, MinAllowed: map[string]string{"memory": "25Mi"}},
		ContainerPolicy{Container: "c", ControlledValues: RequestsOnly},
		ContainerPolicy{Container: "sidecar", Mode: ModeOff})
	assert.Equal(t, "autoscaling.k8s.io/v1", u.GetAPIVersion())
	assert.Equal(t, "VerticalPodAutoscaler", u.GetKind())
	assert.Equal(t, map[string]string{"app": "x"}, u.GetLabels())
	mode, _, _ := unstructured.NestedString(u.Object, "spec", "updatePolicy", "updateMode")
	assert.Equal(t, "Auto", mode)
	target, _, _ := unstructured.NestedString(u.Object, "spec", "targetRef", "name")
	assert.Equal(t, "x-deploy", target)
	policies, _, err := unstructured.NestedSlice(u.Object, "spec", "resourcePolicy", "containerPolicies")
	require.NoError(t, err)
	require.Len(t, policies, 3)
	assert.Equal(t, map[string]any{"containerName": "*", "minAllowed": map[string]any{"memory": "25Mi"}}, policies[0])
	assert.Equal(t, map[string]any{"containerName": "c", "controlledValues": "RequestsOnly"}, policies[1])
	assert.Equal(t, map[string]any{"containerName": "sidecar", "mode": "Off"}, policies[2])
}
