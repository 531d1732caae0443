// Package managedresource packs objects into a gardener-resource-manager ManagedResource: the
// objects serialised into a Secret, and the ManagedResource referring to it (Gardener's "Gardener
// Resource Manager" docs/concepts/resource-manager.md, API Gardener's "Resources"
// docs/api-reference/resources.md). Seed system components, extensions and a shoot's system
// components reach their target cluster this way; the engine applies the Secret and the
// ManagedResource and waits until the resource manager reports the ManagedResource applied, healthy
// and not progressing (pkg/utils/kubernetes/health/managedresource.go).
package managedresource

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ContentsLabel marks the Secrets that hold a ManagedResource's objects, so that plans can show
// the objects inside one by one instead of opaque Secret data.
const ContentsLabel = render.ManagedResourceContentsLabel

// Spec describes one ManagedResource.
type Spec struct {
	// Cluster is the cluster the ManagedResource and its Secret are created in (a seed, or the
	// garden runtime cluster).
	Cluster   string
	Namespace string
	Name      string
	// Class selects the resource manager instance: "seed" for a seed's own components, "" for
	// the shoot's resource manager, which applies into the shoot (Gardener's
	// docs/concepts/resource-manager.md).
	Class string
	// KeepObjects leaves the objects in the target cluster when the ManagedResource is deleted.
	KeepObjects bool
	// Labels are the ManagedResource's labels (origin, a care condition type, ...).
	Labels map[string]string
	// InjectLabels are added to every object the resource manager applies.
	InjectLabels map[string]string
	// Objects are the objects the resource manager applies to its target cluster.
	Objects []*unstructured.Unstructured
}

// Labels and values Gardener puts on the ManagedResources of a shoot's system components
// (NewForShoot in pkg/utils/managedresources/managedresources.go at gardener/gardener v1.120.0).
const (
	// LabelOrigin says who created a ManagedResource; Gardener acts on those of origin gardener.
	LabelOrigin = "origin"
	// OriginGardener is the origin of Gardener's own ManagedResources.
	OriginGardener = "gardener"
	// LabelNoCleanup, injected into every object of a shoot ManagedResource, keeps the shoot
	// deletion's clean-up from deleting them before their ManagedResource goes (Gardener's
	// "Necessary Labeling for Custom CSI Components" docs/usage/advanced/csi_components.md).
	LabelNoCleanup = "shoot.gardener.cloud/no-cleanup"
)

// ForShoot is the Spec of a ManagedResource of Gardener's own that the shoot's resource manager
// applies into the shoot: no class, origin gardener, the no-cleanup label injected into every
// object (NewForShoot in pkg/utils/managedresources/managedresources.go at v1.120.0).
func ForShoot(cluster, namespace, name string, keepObjects bool, objects []*unstructured.Unstructured) Spec {
	return Spec{
		Cluster: cluster, Namespace: namespace, Name: name, KeepObjects: keepObjects,
		Labels:       map[string]string{LabelOrigin: OriginGardener},
		InjectLabels: map[string]string{LabelNoCleanup: "true"},
		Objects:      objects,
	}
}

// SecretName is the name prefix of the Secret holding a ManagedResource's objects. Gardener
// prefixes these Secrets with "managedresource-" (Gardener's docs/concepts/resource-manager.md) and
// appends a checksum of their data (UniqueSecretName).
func SecretName(mr string) string { return "managedresource-" + mr }

// DataKey is the key one object is stored under: <kind>__<namespace>__<name>.yaml, lower-case,
// the namespace empty for cluster-scoped objects, so that keys are unique and stable.
func DataKey(u *unstructured.Unstructured) string {
	return strings.ToLower(u.GetKind()) + "__" + u.GetNamespace() + "__" + strings.ReplaceAll(u.GetName(), ":", "_") + ".yaml"
}

// Pack renders the Secret with the objects and the ManagedResource referring to it. Objects are
// stored one per key in sorted key order; two objects with the same key are an error.
//
// As Gardener's do (NewSecret and the ManagedResource builder in pkg/utils/managedresources at
// v1.120.0), the Secret is immutable, named managedresource-<name>-<8 hex digits of the checksum of
// its data> and labelled garbage-collectable, and the ManagedResource names it in a reference
// annotation: a change of the objects is a new Secret, and the resource manager's garbage
// collector deletes the old one once nothing names it. The engine deletes it too, with the reason
// superseded, once the ManagedResource refers to the new one (render.Object.Supersedes). A Secret
// whose objects hold generated secrets stays mutable (see below).
func Pack(s Spec) ([]render.Object, error) {
	if s.Cluster == "" || s.Namespace == "" || s.Name == "" {
		return nil, fmt.Errorf("managed resource %s/%s: cluster, namespace and name are required", s.Namespace, s.Name)
	}
	data := map[string]string{}
	for _, o := range s.Objects {
		key := DataKey(o)
		if _, dup := data[key]; dup {
			return nil, fmt.Errorf("managed resource %s/%s: %s %s/%s is packed twice", s.Namespace, s.Name, o.GetKind(), o.GetNamespace(), o.GetName())
		}
		out, err := kube.YAML(o.Object)
		if err != nil {
			return nil, fmt.Errorf("managed resource %s/%s: %s %s: %w", s.Namespace, s.Name, o.GetKind(), o.GetName(), err)
		}
		data[key] = string(out)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: SecretName(s.Name), Namespace: s.Namespace,
			Labels: map[string]string{ContentsLabel: "true"},
		},
		Type:       corev1.SecretTypeOpaque,
		StringData: data,
	}
	unique.Secret(secret)
	if render.HasGenerated(kube.AnyMap(data)) {
		// Generated certificates inside (vpn-shoot's client certificate) are renewed by the
		// engine under the same rendering, hence the same name: the Secret's data must change
		// in place then, which an immutable Secret would refuse (and the plan replace). Gardener
		// names such a Secret after the renewed data; the engine cannot see it when it renders.
		secret.Immutable = nil
	}
	mr := map[string]any{
		"secretRefs":  []any{map[string]any{"name": secret.Name}},
		"keepObjects": s.KeepObjects,
	}
	if s.Class != "" {
		mr["class"] = s.Class
	}
	if len(s.InjectLabels) > 0 {
		mr["injectLabels"] = kube.AnyMap(s.InjectLabels)
	}
	sec, err := kube.ToUnstructured(secret)
	if err != nil {
		return nil, err
	}
	managed := kube.Custom("resources.gardener.cloud/v1alpha1", "ManagedResource", s.Namespace, s.Name, maps.Clone(s.Labels), map[string]any{"spec": mr})
	managed.SetAnnotations(map[string]string{unique.AnnotationKey("secret", secret.Name): secret.Name})
	out := kube.On(s.Cluster, "", sec, managed)
	out[0].Supersedes = unique.Versions(SecretName(s.Name))
	return out, nil
}
