package extension

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// fakeGarden answers an extension's live reads from objects, by the resource their kind is
// served as; objects of the virtual garden (Gardener's kinds, Secrets) are in cluster virtual,
// the others in every seed cluster.
type fakeGarden []map[string]any

// resources are the plural resources of the kinds the tests use.
var resources = map[string]string{
	"ControllerInstallation": "controllerinstallations", "ControllerRegistration": "controllerregistrations",
	"Shoot": "shoots", "Seed": "seeds", "BackupBucket": "backupbuckets", "BackupEntry": "backupentries",
	"Secret": "secrets", "ManagedResource": "managedresources", "Network": "networks", "Infrastructure": "infrastructures",
}

func (f fakeGarden) matching(resource, namespace, selector string) ([]unstructured.Unstructured, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	var out []unstructured.Unstructured
	for _, o := range f {
		u := unstructured.Unstructured{Object: o}
		if resources[u.GetKind()] == resource && (namespace == "" || u.GetNamespace() == namespace) && sel.Matches(labels.Set(u.GetLabels())) {
			out = append(out, *u.DeepCopy())
		}
	}
	return out, nil
}

// input is a rendering's input that reads from the fake garden.
func (f fakeGarden) input(name, dir string) render.Input {
	return render.Input{
		Name: name, Dir: dir, Landscape: "local",
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			return f.matching(ref.Resource, ref.Namespace, ref.LabelSelector)
		},
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			items, err := f.matching(ref.Resource, ref.Namespace, "")
			for i := range items {
				if items[i].GetName() == ref.Name {
					return &items[i], err
				}
			}
			return nil, err
		},
	}
}

// liveInstallationOf is a ControllerInstallation gardener-controller-manager made, with conditions.
func liveInstallationOf(name, registration, seed string, conditions ...map[string]any) map[string]any {
	obj := map[string]any{"apiVersion": InstallationAPIVersion, "kind": InstallationKind, "metadata": map[string]any{"name": name},
		"spec": map[string]any{"registrationRef": map[string]any{"name": registration}, "seedRef": map[string]any{"name": seed}}}
	if len(conditions) > 0 {
		var list []any
		for _, c := range conditions {
			list = append(list, c)
		}
		obj["status"] = map[string]any{"conditions": list}
	}
	return obj
}

// liveShootOf is a Shoot of the virtual garden on a seed, with its spec.
func liveShootOf(namespace, name, seed string, spec map[string]any) map[string]any {
	if seed != "" {
		spec["seedName"] = seed
	}
	return map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": name, "namespace": namespace}, "spec": spec}
}

// renderedText is the golden form of an extension's rendering: its parts in order, each part that
// follows an installation rendered from what the fake garden holds (the objects, the reported
// conditions), then the predictions, notices and releases.
func renderedText(t *testing.T, out *render.Output, in render.Input) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range out.Components {
		fmt.Fprintf(&b, "### part %s (%s) after [%s]", p.Name, p.Type, strings.Join(p.DependsOn, ", "))
		if p.Detached {
			b.WriteString(", detached")
		}
		b.WriteString("\n")
		objects := p.Objects
		if a := p.Await; a != nil {
			fmt.Fprintf(&b, "# follows %s\n", a.For)
			got, err := a.Render(in)
			require.NoError(t, err)
			if got == nil {
				b.WriteString("# rendered during apply: it does not exist yet\n")
				continue
			}
			objects = got.Objects
			for _, r := range got.StatusReports {
				conds, err := r.Conditions(in)
				require.NoError(t, err)
				fmt.Fprintf(&b, "# reports on %s %s:\n", r.Kind, r.Name)
				for _, c := range conds {
					fmt.Fprintf(&b, "#   %s\n", c)
				}
			}
		}
		data, err := golden.YAML(objects)
		require.NoError(t, err)
		b.Write(data)
	}
	b.WriteString("### predictions\n")
	for _, p := range out.Predictions {
		fmt.Fprintf(&b, "# %s (%s) %s %s %s in %s: %s\n", p.Actor, p.Controller, p.Action, p.Kind, p.Name, p.Cluster, p.Description)
	}
	b.WriteString("### notices\n")
	for _, n := range out.Notices {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	b.WriteString("### handed over\n")
	for _, h := range out.HandedOver {
		fmt.Fprintf(&b, "# %s %s in %s to %s\n", h.Kind, h.Name, h.Cluster, h.Controller)
	}
	return b.Bytes()
}
