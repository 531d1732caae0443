package unique

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The names Gardener's own tests expect for dependency-watchdog's ConfigMaps with an empty
// configuration (pkg/component/nodemanagement/dependencywatchdog/bootstrap_test.go in
// gardener/gardener v1.120.0): the checksum must be Gardener's, byte for byte.
func TestNameMatchesGardener(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{"servicesAndDependantSelectors: null\n", "dependency-watchdog-weeder-config-d1e2e712"},
		{"dependentResourceInfos: null\nkubeConfigSecretName: \"\"\n", "dependency-watchdog-prober-config-3c10a163"},
	} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tt.want[:len(tt.want)-9]}, Data: map[string]string{"dep-config.yaml": tt.config}}
		ConfigMap(cm)
		assert.Equal(t, tt.want, cm.Name)
		assert.True(t, *cm.Immutable)
		assert.Equal(t, "true", cm.Labels[Label])
	}
}

func TestSecretAndVersions(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x-"}, StringData: map[string]string{"a": "b"}}
	Secret(s)
	assert.Regexp(t, `^x-[0-9a-f]{8}$`, s.Name)
	v := Versions("x")
	assert.True(t, v.MatchString(s.Name))
	assert.True(t, v.MatchString("x"), "the name before it became content-addressed")
	assert.False(t, v.MatchString("x-y"))
	assert.False(t, v.MatchString("xx-0123abcd"))
}

// The annotation key of a reference is Gardener's (references.AnnotationKey): the kind and eight
// digits of the name's SHA-256.
func TestInjectReferences(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"reference.resources.gardener.cloud/configmap-00000000": "old", "keep": "me"}}}
	d.Spec.Template.Spec = corev1.PodSpec{
		Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s1"}}}}}}},
		Volumes: []corev1.Volume{
			{VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c1"}}}},
			{VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s2"}}}}}}},
		},
	}
	InjectReferences(d)
	want := map[string]string{
		AnnotationKey("secret", "s1"): "s1", AnnotationKey("configmap", "c1"): "c1", AnnotationKey("secret", "s2"): "s2",
	}
	assert.Equal(t, want, d.Spec.Template.Annotations)
	want["keep"] = "me"
	assert.Equal(t, want, d.Annotations)
	assert.Regexp(t, `^reference\.resources\.gardener\.cloud/configmap-[0-9a-f]{8}$`, AnnotationKey("configmap", "c1"))
}

// TestInjectTemplateReferences: a DaemonSet names what its pods mount as a Deployment does, and
// stale references go.
func TestInjectTemplateReferences(t *testing.T) {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationKey("secret", "gone"): "gone", "keep": "me"}},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-1234abcd"}}}},
		}}}},
	}
	InjectTemplateReferences(&ds.ObjectMeta, &ds.Spec.Template)
	assert.Equal(t, map[string]string{AnnotationKey("configmap", "cm-1234abcd"): "cm-1234abcd", "keep": "me"}, ds.Annotations)
	assert.Equal(t, map[string]string{AnnotationKey("configmap", "cm-1234abcd"): "cm-1234abcd"}, ds.Spec.Template.Annotations)
}

func TestVersionsCompilesEachBaseNameOnce(t *testing.T) {
	assert.Same(t, Versions("kube-apiserver-config"), Versions("kube-apiserver-config"), "shared by every shoot")
	assert.NotSame(t, Versions("kube-apiserver-config"), Versions("kube-scheduler-config"))
	assert.True(t, Versions("kube-scheduler-config").MatchString("kube-scheduler-config-0123abcd"))
}
