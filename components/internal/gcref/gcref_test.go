package gcref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The expected names and keys are the ones Gardener's own tests hold for the same inputs
// (pkg/utils/kubernetes/object_test.go and
// pkg/resourcemanager/controller/garbagecollector/references/references_test.go at v1.120.0), so
// the engine names an object exactly as Gardener would.
func TestUniqueConfigMap(t *testing.T) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "some-name", Labels: map[string]string{"foo": "bar"}},
		Data:       map[string]string{"foo": "bar"},
		BinaryData: map[string][]byte{"bar": []byte("foo")},
	}
	UniqueConfigMap(cm)
	assert.Equal(t, "some-name-ec321de5", cm.Name)
	assert.Equal(t, ptr.To(true), cm.Immutable)
	assert.Equal(t, map[string]string{"foo": "bar", LabelGarbageCollectable: "true"}, cm.Labels)
}

func TestUniqueSecret(t *testing.T) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "some-name-"},
		Data:       map[string][]byte{"foo": []byte("bar")},
		StringData: map[string]string{"bar": "foo"},
	}
	UniqueSecret(s)
	assert.Equal(t, "some-name-ec321de5", s.Name, "no second dash after a trailing one")
	assert.Equal(t, ptr.To(true), s.Immutable)
	assert.Equal(t, "true", s.Labels[LabelGarbageCollectable])
}

func TestAnnotationKey(t *testing.T) {
	assert.Equal(t, "reference.resources.gardener.cloud/kind-82a3537f", AnnotationKey("kind", "name"))
}

func TestInjectPodTemplate(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			"keep": "me", AnnotationKey(KindSecret, "gone"): "gone",
		}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "env-cm"}}}}}},
			Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-secret"}, Key: "k"},
			}}}}},
			Volumes: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "vol-cm"}}}},
				{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-secret"}}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				}}}},
			},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
		},
	}
	var meta metav1.ObjectMeta
	InjectPodTemplate(&meta, &tmpl)
	want := map[string]string{
		AnnotationKey(KindConfigMap, "env-cm"):   "env-cm",
		AnnotationKey(KindSecret, "env-secret"):  "env-secret",
		AnnotationKey(KindSecret, "vol-secret"):  "vol-secret",
		AnnotationKey(KindConfigMap, "vol-cm"):   "vol-cm",
		AnnotationKey(KindSecret, "proj-secret"): "proj-secret",
		AnnotationKey(KindSecret, "pull"):        "pull",
	}
	assert.Equal(t, want, meta.Annotations)
	want["keep"] = "me"
	assert.Equal(t, want, tmpl.Annotations, "stale references go, other annotations stay")
}

func TestForSecretNames(t *testing.T) {
	assert.Equal(t, map[string]string{AnnotationKey(KindSecret, "a"): "a"}, ForSecretNames("a"))
}
