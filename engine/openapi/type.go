package openapi

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Type is the schema of one kind in one version. It is a managedfields.TypeConverter for that
// kind and answers the schema questions a diff asks beyond typing. Safe for concurrent use.
type Type struct {
	gvk       schema.GroupVersionKind
	source    Source
	model     string
	group     *group
	parseable typed.ParseableType

	transitionOnce sync.Once
	transition     []Pattern
}

var _ managedfields.TypeConverter = (*Type)(nil)

// GroupVersionKind is the kind the type describes.
func (t *Type) GroupVersionKind() schema.GroupVersionKind { return t.gvk }

// Source says where the type's document came from.
func (t *Type) Source() Source { return t.source }

// Parseable is the structured-merge-diff type of the kind's objects.
func (t *Type) Parseable() typed.ParseableType { return t.parseable }

// ObjectToTyped types an object of the kind, as the API server's field manager does.
func (t *Type) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk != t.gvk {
		return nil, fmt.Errorf("openapi type %s: cannot type an object of kind %s", t.gvk, gvk)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return t.parseable.FromUnstructured(u.Object, opts...)
	}
	return t.parseable.FromStructured(obj, opts...)
}

// TypedToObject turns a typed value back into an unstructured object.
func (t *Type) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	m, ok := v.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapi type %s: typed value is not an object", t.gvk)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// TransitionImmutable lists the fields whose schema carries the transition rule
// `self == oldSelf` (x-kubernetes-validations): the API server rejects any change of their
// value once set, so changing one requires replacing the object. Computed once.
func (t *Type) TransitionImmutable() []Pattern {
	t.transitionOnce.Do(func() {
		t.transition = t.group.transitionsOf(t.model)
	})
	return t.transition
}
