// Package kube turns the typed Kubernetes objects component packages build (k8s.io/api
// structs) into the unstructured objects the engine applies, without the empty fields the Go
// types carry (creationTimestamp: null, status: {}), which would otherwise show up as changes
// in every plan.
package kube

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/declarative-gardener/gardener/engine/render"
)

// scheme knows the built-in kinds and CustomResourceDefinitions, so that callers need not fill
// in TypeMeta themselves.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic("kube: building the scheme: " + err.Error()) // only on a broken k8s.io/api
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic("kube: building the scheme: " + err.Error())
	}
	return s
}()

// ToUnstructured converts a typed object to an unstructured one with apiVersion and kind set
// from the scheme and without empty status, null timestamps or other zero-valued noise.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		// Converted already (crds.Object): cleaned as the converter's result would be, without
		// the reflection, which for a CRD's schema costs ten times the copy.
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("unstructured object %q: kind unknown", u.GetName())
		}
		return &unstructured.Unstructured{Object: Clean(u.Object)}, nil
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return nil, fmt.Errorf("object of type %T: kind unknown: %w", obj, err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("object of type %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: Clean(m)}
	u.SetGroupVersionKind(gvks[0])
	return u, nil
}

// All converts objects with ToUnstructured and stops at the first error.
func All(objs ...runtime.Object) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		u, err := ToUnstructured(o)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// Clean returns a JSON-shaped object without null values, recursively, and without its status:
// the typed structs serialise creationTimestamp as null and status as {} or zero counters, and
// server-side apply would claim ownership of such fields, while status is the controllers'
// business. Empty maps stay, because they mean something (emptyDir: {}, a CRD's
// subresources.status: {}). Every map is made anew at the size of what it holds: the converter
// sizes a struct's map for all of the struct's fields (a PodSpec's for about 40) where a rendered
// object sets a few, and a full plan of a fleet holds every rendered object at once.
func Clean(m map[string]any) map[string]any {
	out := compact(m)
	delete(out, "status")
	return out
}

// compact is m without null values, in a map of its size, its maps and those in its lists
// compacted too.
func compact(m map[string]any) map[string]any {
	n := 0
	for _, v := range m {
		if v != nil {
			n++
		}
	}
	out := make(map[string]any, n)
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = compact(v)
		case []any:
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					v[i] = compact(em)
				}
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
	return out
}

// Custom builds an object of a kind the scheme does not know (custom resources such as Etcd,
// ManagedResource or Istio's Gateway) from its fields besides apiVersion, kind and metadata.
func Custom(apiVersion, kind, namespace, name string, labels map[string]string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	if namespace != "" {
		u.SetNamespace(namespace)
	}
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	return u
}

// On places objects in a cluster for the engine; defaultNamespace is given to namespaced objects
// that name none (empty for none).
func On(cluster, defaultNamespace string, objs ...*unstructured.Unstructured) []render.Object {
	out := make([]render.Object, len(objs))
	for i, u := range objs {
		out[i] = render.Object{Cluster: cluster, Object: u, DefaultNamespace: defaultNamespace}
	}
	return out
}

// Typed converts typed objects and places them in a cluster, the common last step of a
// component's Objects function.
func Typed(cluster string, objs ...runtime.Object) ([]render.Object, error) {
	us, err := All(objs...)
	if err != nil {
		return nil, err
	}
	return On(cluster, "", us...), nil
}

// ServiceDNSNames are the names a Service is reached by inside its cluster, the names a serving
// certificate for it must carry: service, service.namespace, service.namespace.svc and
// service.namespace.svc.cluster.local.
func ServiceDNSNames(service, namespace string) []string {
	return []string{service, service + "." + namespace, service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local"}
}
