package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestToUnstructured(t *testing.T) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "garden"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "web", Image: "web:1"}},
			Volumes:    []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		}}},
	}
	u, err := ToUnstructured(d)
	require.NoError(t, err)
	assert.Equal(t, "apps/v1", u.GetAPIVersion())
	assert.Equal(t, "Deployment", u.GetKind())
	_, hasStatus := u.Object["status"]
	assert.False(t, hasStatus, "status is not applied")
	_, hasTimestamp := u.Object["metadata"].(map[string]any)["creationTimestamp"]
	assert.False(t, hasTimestamp, "null timestamps are not applied")
	vol := u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["volumes"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{}, vol["emptyDir"], "an empty emptyDir is the volume's source and stays")
}

func TestToUnstructuredUnknownType(t *testing.T) {
	_, err := ToUnstructured(&unstructured.Unstructured{Object: map[string]any{}})
	assert.Error(t, err)
}

func TestFeatureGatesFlag(t *testing.T) {
	assert.Equal(t, "A=true,B=false", FeatureGatesFlag(map[string]bool{"B": false, "A": true}), "sorted by gate name")
	assert.Equal(t, "", FeatureGatesFlag(nil))
}
