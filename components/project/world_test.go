package project

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// now is the plan's time in the tests.
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func daysAgo(d int) string { return now.AddDate(0, 0, -d).Format(time.RFC3339) }

// world is the virtual garden a rendering reads: live objects by resource and name (namespaced
// ones as "namespace/name"), and lists by resource.
type world struct {
	objects map[string]map[string]*unstructured.Unstructured
	lists   map[string][]unstructured.Unstructured
}

func newWorld() *world {
	return &world{objects: map[string]map[string]*unstructured.Unstructured{}, lists: map[string][]unstructured.Unstructured{}}
}

// with adds a live object under its resource.
func (w *world) with(resource string, u *unstructured.Unstructured) *world {
	if w.objects[resource] == nil {
		w.objects[resource] = map[string]*unstructured.Unstructured{}
	}
	key := u.GetName()
	if u.GetNamespace() != "" {
		key = u.GetNamespace() + "/" + key
	}
	w.objects[resource][key] = u
	return w
}

// listing adds objects to a resource's list.
func (w *world) listing(resource string, items ...unstructured.Unstructured) *world {
	w.lists[resource] = append(w.lists[resource], items...)
	return w
}

func (w *world) input(t *testing.T, config string) render.Input {
	return render.Input{
		Name: "local", Address: "component.project.local", Config: rendertest.JSONConfigOf(t, Type, config), Now: now,
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			key := ref.Name
			if ref.Namespace != "" {
				key = ref.Namespace + "/" + key
			}
			if u := w.objects[ref.Resource][key]; u != nil {
				return u.DeepCopy(), nil
			}
			return nil, nil
		},
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			var out []unstructured.Unstructured
			for _, item := range w.lists[ref.Resource] {
				if ref.Namespace == "" || item.GetNamespace() == ref.Namespace {
					out = append(out, item)
				}
			}
			return out, nil
		},
	}
}

// liveProject is the Project "local" as gardener-apiserver and gardener-controller-manager
// keep it: created at created, with the status given.
func liveProject(created string, status map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": APIVersion, "kind": Kind,
		"metadata": map[string]any{"name": "local", "uid": "6f1c", "creationTimestamp": created},
		"status":   status,
	}}
}

// liveNamespace is a namespace with labels and annotations; owned makes the Project local its
// controller, as gardener-controller-manager does when it creates or adopts it.
func liveNamespace(name string, labels, annotations map[string]string, owned bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	u.SetLabels(labels)
	u.SetAnnotations(annotations)
	if owned {
		u.Object["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
			"apiVersion": APIVersion, "kind": Kind, "name": "local", "uid": "6f1c", "controller": true, "blockOwnerDeletion": false,
		}}
	}
	return u
}

var projectLabels = map[string]string{LabelRole: LabelRoleProject, LabelProjectName: "local"}

// gcmNamespace is garden-local as gardener-controller-manager creates it.
func gcmNamespace(annotations map[string]string) *unstructured.Unstructured {
	a := map[string]string{AnnotationCreatedByProjectController: "true", AnnotationNamespaceProject: "6f1c"}
	for k, v := range annotations {
		a[k] = v
	}
	return liveNamespace("garden-local", projectLabels, a, true)
}

func item(namespace, name string, fields map[string]any) unstructured.Unstructured {
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": namespace}}
	for k, v := range fields {
		obj[k] = v
	}
	return unstructured.Unstructured{Object: obj}
}
