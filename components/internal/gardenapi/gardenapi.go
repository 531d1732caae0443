// Package gardenapi holds what the components that render one Gardener API object in the virtual
// garden (project, cloud profile, bindings, quota, controller registration and deployment,
// exposure class) do alike: decoding their configuration with the object's name defaulted to the
// instance name, waiting for names known only after apply, checking names, and rendering the
// fields several of these kinds share (label selectors, tolerations, quota references, free-form
// values), and reading the conditions of live Gardener objects that components decide from.
// Keeping it in one place keeps the components' rules and error messages the same.
package gardenapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/engine/render"
)

// GardenNamespace is where namespaced objects live when their configuration names no namespace:
// the garden project's namespace, as for the other namespaced components of the catalog.
const GardenNamespace = "garden"

// Named defaults *name, the name of an instance's object, to the instance name, and returns an
// error wrapping render.ErrDeferred while the name or the namespace is known only after apply,
// because the rendered objects and the outputs depend on both. namespace is nil for
// cluster-scoped objects; what names the object in errors, such as "quota".
func Named(in render.Input, what string, name, namespace *string) error {
	if *name == "" {
		*name = in.Name
	}
	if namespace == nil {
		if strings.Contains(*name, render.UnknownString) {
			return fmt.Errorf("%s name %w", what, render.ErrDeferred)
		}
		return nil
	}
	if strings.Contains(*name, render.UnknownString) || strings.Contains(*namespace, render.UnknownString) {
		return fmt.Errorf("%s name or namespace %w", what, render.ErrDeferred)
	}
	return nil
}

// Object is a component type that renders one Gardener API object: what names the object in
// errors (such as "quota"), where its values keep the object's name and namespace (namespace nil
// for a cluster-scoped kind), and its objects.
type Object[V any] struct {
	What    string
	Meta    func(v *V) (name, namespace *string)
	Objects func(V) ([]render.Object, error)
}

// Render is the type's render function: the name defaulted to the instance name and waiting for
// names known only after apply (Named), the objects, and the name (and namespace) as outputs.
func (o Object[V]) Render(in render.Input, v V) (*render.Output, error) {
	name, namespace := o.Meta(&v)
	if err := Named(in, o.What, name, namespace); err != nil {
		return nil, err
	}
	objs, err := o.Objects(v)
	if err != nil {
		return nil, err
	}
	ns := ""
	if namespace != nil {
		ns = *namespace
	}
	return Output(objs, *name, ns), nil
}

// Output is the render output of a component that renders one API object: the objects, and the
// object's name (and namespace, unless it is "" for a cluster-scoped object) as outputs, which
// other components reference.
func Output(objs []render.Object, name, namespace string) *render.Output {
	outputs := map[string]cty.Value{"name": cty.StringVal(name)}
	if namespace != "" {
		outputs["namespace"] = cty.StringVal(namespace)
	}
	return &render.Output{Objects: objs, Outputs: outputs}
}

// ValidateName checks an object name, which the API server accepts as a DNS subdomain only; what
// names the object, such as "quota".
func ValidateName(what, name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("%s name %q is invalid: %s", what, name, strings.Join(errs, "; "))
	}
	return nil
}

// ValidateNamespaced checks the name and the namespace of a namespaced object.
func ValidateNamespaced(what, name, ns string) error {
	if err := ValidateName(what, name); err != nil {
		return err
	}
	return ValidateNamespace(what, name, ns)
}

// ValidateNamespace checks the namespace of the object what/name, which must be a DNS label.
func ValidateNamespace(what, name, ns string) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Errorf("%s %s: namespace %q is invalid: %s", what, name, ns, strings.Join(errs, "; "))
	}
	return nil
}

// Normalise round-trips free-form values through JSON so that whole numbers become int64, as the
// API server returns them, and every value is a plain JSON type; otherwise plans would show
// differences of type only.
func Normalise(in map[string]any) (map[string]any, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
