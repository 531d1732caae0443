package managedresource

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the managed_resource component's typed inputs: the ManagedResource to create and
// the objects the resource manager applies to its target cluster.
type Values struct {
	// Cluster is the cluster the ManagedResource and its Secret are created in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the ManagedResource's namespace (required).
	Namespace string `json:"namespace"`
	// Name is the ManagedResource's name; Render defaults it to the instance name with
	// underscores as dashes, Objects requires it.
	Name string `json:"name"`
	// Class selects the resource manager instance ("seed" in a seed, "" for a shoot's own
	// resource manager, Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md).
	Class string `json:"class"`
	// KeepObjects leaves the objects in the target cluster when the ManagedResource goes.
	KeepObjects bool `json:"keep_objects"`
	// InjectLabels are added by the resource manager to every object it applies.
	InjectLabels map[string]string `json:"inject_labels"`
	// Objects are objects given inline, packed before the files' objects.
	Objects Inline `json:"objects"`
	// Files are YAML files the landscape names, read through Paths, with objects separated by
	// ---.
	Files []string `json:"files"`
	// Paths reads Files: the landscape directory under the operator's policy.
	Paths *landscapefs.Dir `json:"-"`
}

// Type is the managed_resource component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one managed_resource instance and its output `name`.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	v.Paths = in.Files()
	if v.Name == "" {
		v.Name = component.InstanceObjectName(in.Name)
	}
	for _, s := range append([]string{v.Name, v.Namespace}, v.Files...) {
		if strings.Contains(s, render.UnknownString) {
			// The Secret's key names and the objects' identity depend on these.
			return nil, fmt.Errorf("managed resource name, namespace or a file path %w", render.ErrDeferred)
		}
	}
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{"name": cty.StringVal(v.Name)}}, nil
}

// Objects reads the files and packs the inline and file objects into the Secret and the
// ManagedResource (see Pack). Objects are packed as given: the resource manager, not the
// engine, applies them, so namespaced objects should name their namespace.
func Objects(v Values) ([]render.Object, error) {
	if v.Name == "" || v.Namespace == "" {
		return nil, fmt.Errorf("managed resource %s/%s: name and namespace are required", v.Namespace, v.Name)
	}
	if errs := validation.IsDNS1123Subdomain(SecretName(v.Name)); len(errs) > 0 {
		return nil, fmt.Errorf("managed resource %s: name is invalid: %s", v.Name, strings.Join(errs, "; "))
	}
	raw := append([]map[string]any{}, v.Objects...)
	for _, f := range v.Files {
		docs, err := manifests.ReadFile(v.Paths, f)
		if err != nil {
			return nil, fmt.Errorf("managed resource %s: %w", v.Name, err)
		}
		raw = append(raw, docs...)
	}
	objs := make([]*unstructured.Unstructured, 0, len(raw))
	for i, m := range raw {
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("managed resource %s: object %d has no apiVersion, kind or metadata.name", v.Name, i+1)
		}
		objs = append(objs, u)
	}
	return Pack(Spec{
		Cluster:      v.Cluster.Name,
		Namespace:    v.Namespace,
		Name:         v.Name,
		Class:        v.Class,
		KeepObjects:  v.KeepObjects,
		InjectLabels: v.InjectLabels,
		Objects:      objs,
	})
}
