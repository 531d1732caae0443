// Package unique gives ConfigMaps and Secrets the content-addressed, immutable form Gardener's
// components deploy them in (kubernetesutils.MakeUnique in pkg/utils/kubernetes/object.go of
// gardener/gardener v1.120.0), and the reference annotations its workloads carry for them
// (pkg/resourcemanager/controller/garbagecollector/references/references.go): a changed content
// is a new object under a new name, the workload rolls because its template names it, and
// gardener-resource-manager's garbage collector deletes the versions no workload names any more.
package unique

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Label marks a ConfigMap or Secret that gardener-resource-manager's garbage collector may delete
// once no workload refers to it.
const Label = "resources.gardener.cloud/garbage-collectable-reference"

// annotationPrefix starts the annotations that name a workload's ConfigMaps and Secrets.
const annotationPrefix = "reference.resources.gardener.cloud/"

// checksumLength is how many hex digits of the content's checksum the name carries.
const checksumLength = 8

// Checksum is the checksum of a ConfigMap's or Secret's data as Gardener computes it: the
// SHA-256 (hex) of the concatenated SHA-256 (hex) digests of the values, in the order of their
// sorted keys.
func Checksum(data map[string][]byte) string {
	var digests strings.Builder
	for _, k := range slices.Sorted(maps.Keys(data)) {
		sum := sha256.Sum256(data[k])
		digests.WriteString(hex.EncodeToString(sum[:]))
	}
	sum := sha256.Sum256([]byte(digests.String()))
	return hex.EncodeToString(sum[:])
}

// Name is base with the first eight digits of the data's checksum appended (with a dash unless
// base ends in one).
func Name(base string, data map[string][]byte) string {
	if !strings.HasSuffix(base, "-") {
		base += "-"
	}
	return base + Checksum(data)[:checksumLength]
}

// ConfigMap renames cm after its content, makes it immutable and labels it garbage-collectable.
func ConfigMap(cm *corev1.ConfigMap) {
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	maps.Copy(data, cm.BinaryData)
	cm.Name = Name(cm.Name, data)
	cm.Immutable = ptrTrue()
	cm.Labels = withLabel(cm.Labels)
}

// Secret renames s after its content (Data and StringData), makes it immutable and labels it
// garbage-collectable.
func Secret(s *corev1.Secret) {
	data := map[string][]byte{}
	for k, v := range s.StringData {
		data[k] = []byte(v)
	}
	maps.Copy(data, s.Data)
	s.Name = Name(s.Name, data)
	s.Immutable = ptrTrue()
	s.Labels = withLabel(s.Labels)
}

// Versions matches the names of every version of a unique object with the given base name, and
// the base name itself: an object rendered before it became content-addressed is an earlier
// version too. The patterns are compiled once per base name and shared (a Regexp is safe for
// concurrent use): every shoot's control plane has objects of the same base names, and a plan
// holds every rendered object at once, which with a compiled pattern of its own each cost about
// 150 kB per shoot.
func Versions(base string) *regexp.Regexp {
	if re, ok := versions.Load(base); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := versions.LoadOrStore(base, regexp.MustCompile("^"+regexp.QuoteMeta(strings.TrimSuffix(base, "-"))+"(-[0-9a-f]{8})?$"))
	return re.(*regexp.Regexp)
}

// versions are the patterns Versions compiled, by base name.
var versions sync.Map

// AnnotationKey is the reference annotation's key for a ConfigMap ("configmap") or Secret
// ("secret") of the given name: the prefix, the kind and eight hex digits of the name's SHA-256.
func AnnotationKey(kind, name string) string {
	sum := sha256.Sum256([]byte(name))
	return annotationPrefix + kind + "-" + hex.EncodeToString(sum[:])[:checksumLength]
}

// References are the reference annotations of a pod spec: one per ConfigMap and Secret its
// containers read through envFrom and env, its volumes mount (projected ones included) and its
// image pull Secrets name, each with the object's name as value.
func References(spec corev1.PodSpec) map[string]string {
	out := map[string]string{}
	add := func(kind, name string) { out[AnnotationKey(kind, name)] = name }
	for _, c := range spec.Containers {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				add("secret", e.SecretRef.Name)
			}
			if e.ConfigMapRef != nil {
				add("configmap", e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				add("secret", r.Name)
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				add("configmap", r.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.Secret != nil {
			add("secret", v.Secret.SecretName)
		}
		if v.ConfigMap != nil {
			add("configmap", v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add("secret", s.Secret.Name)
				}
				if s.ConfigMap != nil {
					add("configmap", s.ConfigMap.Name)
				}
			}
		}
	}
	for _, r := range spec.ImagePullSecrets {
		add("secret", r.Name)
	}
	return out
}

// InjectReferences sets the reference annotations of d's pod spec on d and on its pod template,
// replacing any it carried before.
func InjectReferences(d *appsv1.Deployment) {
	InjectTemplateReferences(&d.ObjectMeta, &d.Spec.Template)
}

// InjectTemplateReferences sets the reference annotations of a workload's pod template on the
// workload's metadata and on the template, replacing any they carried before: what
// InjectReferences does for a Deployment, for a DaemonSet or StatefulSet.
func InjectTemplateReferences(workload *metav1.ObjectMeta, template *corev1.PodTemplateSpec) {
	refs := References(template.Spec)
	workload.Annotations = mergeReferences(workload.Annotations, refs)
	template.Annotations = mergeReferences(template.Annotations, refs)
}

func mergeReferences(annotations, refs map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		if !strings.HasPrefix(k, annotationPrefix) {
			out[k] = v
		}
	}
	maps.Copy(out, refs)
	if len(out) == 0 {
		return nil
	}
	return out
}

func withLabel(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[Label] = "true"
	return out
}

func ptrTrue() *bool { t := true; return &t }

// MarkVersions lets the rendered object of the kind whose name is a version of base supersede
// the earlier versions (see Versions), so that a plan deletes them as superseded when the content
// changes, as gardener-resource-manager's garbage collector does in Gardener.
func MarkVersions(objs []render.Object, kind, base string) {
	for i, o := range objs {
		if o.Object.GetKind() == kind && o.Object.GetName() != base && Versions(base).MatchString(o.Object.GetName()) {
			objs[i].Supersedes = Versions(base)
		}
	}
}
