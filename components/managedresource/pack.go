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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/kube"
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
	// InjectLabels are added to every object the resource manager applies.
	InjectLabels map[string]string
	// Objects are the objects the resource manager applies to its target cluster.
	Objects []*unstructured.Unstructured
}

// SecretName is the name of the Secret holding a ManagedResource's objects. Gardener prefixes
// these Secrets with "managedresource-" (Gardener's docs/concepts/resource-manager.md).
func SecretName(mr string) string { return "managedresource-" + mr }

// DataKey is the key one object is stored under: <kind>__<namespace>__<name>.yaml, lower-case,
// the namespace empty for cluster-scoped objects, so that keys are unique and stable.
func DataKey(u *unstructured.Unstructured) string {
	return strings.ToLower(u.GetKind()) + "__" + u.GetNamespace() + "__" + strings.ReplaceAll(u.GetName(), ":", "_") + ".yaml"
}

// Pack renders the Secret with the objects and the ManagedResource referring to it. Objects are
// stored one per key in sorted key order; two objects with the same key are an error.
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
		out, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("managed resource %s/%s: %s %s: %w", s.Namespace, s.Name, o.GetKind(), o.GetName(), err)
		}
		data[key] = string(out)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: SecretName(s.Name), Namespace: s.Namespace,
			Labels: map[string]string{
				ContentsLabel: "true",
				// The resource manager deletes such Secrets once no ManagedResource refers to
				// them any more (Gardener's docs/concepts/resource-manager.md).
				"resources.gardener.cloud/garbage-collectable-reference": "true",
			},
		},
		Type:       corev1.SecretTypeOpaque,
		StringData: data,
	}
	mr := map[string]any{
		"secretRefs": []any{map[string]any{"name": SecretName(s.Name)}},
	}
	if s.Class != "" {
		mr["class"] = s.Class
	}
	if s.KeepObjects {
		mr["keepObjects"] = true
	}
	if len(s.InjectLabels) > 0 {
		labels := map[string]any{}
		keys := make([]string, 0, len(s.InjectLabels))
		for k := range s.InjectLabels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			labels[k] = s.InjectLabels[k]
		}
		mr["injectLabels"] = labels
	}
	sec, err := kube.ToUnstructured(secret)
	if err != nil {
		return nil, err
	}
	return kube.On(s.Cluster, "", sec,
		kube.Custom("resources.gardener.cloud/v1alpha1", "ManagedResource", s.Namespace, s.Name, nil, map[string]any{"spec": mr}),
	), nil
}
