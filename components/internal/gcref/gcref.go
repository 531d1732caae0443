// Package gcref makes ConfigMaps and Secrets immutable and unique by content, and records which
// of them a workload or a ManagedResource uses, the way gardener-resource-manager's garbage
// collector expects it (pkg/utils/kubernetes/object.go MakeUnique and
// pkg/resourcemanager/controller/garbagecollector/references at gardener/gardener v1.120.0):
//
//   - Unique gives the object a name ending in the first 8 hex digits of a checksum of its data,
//     sets .immutable and labels it resources.gardener.cloud/garbage-collectable-reference=true;
//   - the annotations reference.resources.gardener.cloud/<kind>-<8 hex digits of the name's
//     sha256>=<name> on a Deployment, DaemonSet or ManagedResource name what it uses.
//
// The collector deletes every labelled ConfigMap and Secret that no such annotation names, so an
// object must only ever be labelled together with the annotations of its users.
package gcref

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The label and annotation prefix of the garbage collector.
const (
	LabelGarbageCollectable = "resources.gardener.cloud/garbage-collectable-reference"
	AnnotationPrefix        = "reference.resources.gardener.cloud/"
)

// The kinds a reference annotation names.
const (
	KindSecret    = "secret"
	KindConfigMap = "configmap"
)

// suffixLength is how many hex digits of the checksum the unique name carries.
const suffixLength = 8

// Checksum is the checksum the unique name's suffix is cut from: the sha256 (hex) of the
// concatenated sha256s (hex) of the values, in the order of their sorted keys.
func Checksum(data map[string][]byte) string {
	var joined strings.Builder
	for _, k := range slices.Sorted(maps.Keys(data)) {
		sum := sha256.Sum256(data[k])
		joined.WriteString(hex.EncodeToString(sum[:]))
	}
	sum := sha256.Sum256([]byte(joined.String()))
	return hex.EncodeToString(sum[:])
}

// UniqueName is name with the suffix of data's checksum, joined by a dash unless name ends in one.
func UniqueName(name string, data map[string][]byte) string {
	if !strings.HasSuffix(name, "-") {
		name += "-"
	}
	return name + Checksum(data)[:suffixLength]
}

// UniqueSecret makes s immutable, renames it after its data (stringData and data, data winning on
// a shared key) and labels it garbage-collectable.
func UniqueSecret(s *corev1.Secret) {
	data := make(map[string][]byte, len(s.StringData)+len(s.Data))
	for k, v := range s.StringData {
		data[k] = []byte(v)
	}
	maps.Copy(data, s.Data)
	s.Name = UniqueName(s.Name, data)
	s.Immutable = ptr.To(true)
	label(&s.ObjectMeta)
}

// UniqueConfigMap makes cm immutable, renames it after its data and binaryData and labels it
// garbage-collectable.
func UniqueConfigMap(cm *corev1.ConfigMap) {
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	maps.Copy(data, cm.BinaryData)
	cm.Name = UniqueName(cm.Name, data)
	cm.Immutable = ptr.To(true)
	label(&cm.ObjectMeta)
}

func label(m *metav1.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[LabelGarbageCollectable] = "true"
}

// AnnotationKey is the reference annotation's key for an object of kind named name.
func AnnotationKey(kind, name string) string {
	sum := sha256.Sum256([]byte(name))
	return AnnotationPrefix + kind + "-" + hex.EncodeToString(sum[:])[:suffixLength]
}

// ForPodSpec are the reference annotations of the ConfigMaps and Secrets a pod uses: in volumes
// (projected sources included), environment variables and image pull secrets.
func ForPodSpec(spec corev1.PodSpec) map[string]string {
	out := map[string]string{}
	add := func(kind, name string) {
		if name != "" {
			out[AnnotationKey(kind, name)] = name
		}
	}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				add(KindSecret, e.SecretRef.Name)
			}
			if e.ConfigMapRef != nil {
				add(KindConfigMap, e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				add(KindSecret, r.Name)
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				add(KindConfigMap, r.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.Secret != nil {
			add(KindSecret, v.Secret.SecretName)
		}
		if v.ConfigMap != nil {
			add(KindConfigMap, v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add(KindSecret, s.Secret.Name)
				}
				if s.ConfigMap != nil {
					add(KindConfigMap, s.ConfigMap.Name)
				}
			}
		}
	}
	for _, s := range spec.ImagePullSecrets {
		add(KindSecret, s.Name)
	}
	return out
}

// ForSecretNames are the reference annotations of the Secrets a ManagedResource refers to.
func ForSecretNames(names ...string) map[string]string {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[AnnotationKey(KindSecret, n)] = n
	}
	return out
}

// InjectPodTemplate puts the reference annotations of tmpl's pod on the workload's metadata and
// on the template, replacing reference annotations that were there.
func InjectPodTemplate(workload *metav1.ObjectMeta, tmpl *corev1.PodTemplateSpec) {
	refs := ForPodSpec(tmpl.Spec)
	workload.Annotations = merge(workload.Annotations, refs)
	tmpl.Annotations = merge(tmpl.Annotations, refs)
}

// merge drops the reference annotations of old and adds refs; nil when the result is empty.
func merge(old, refs map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range old {
		if !strings.HasPrefix(k, AnnotationPrefix) {
			out[k] = v
		}
	}
	maps.Copy(out, refs)
	if len(out) == 0 {
		return nil
	}
	return out
}
