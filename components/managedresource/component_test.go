package managedresource

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

const inlineService = `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "kube-system"},
	"spec": {"ports": [{"port": 80, "targetPort": 8080}], "selector": {"app": "svc"}}}`

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSON(t, Type.RenderConfig, render.Input{Name: "extension_chart", Dir: "testdata"}, map[string]string{
		"default": `{"cluster": {"name": "seed"}, "namespace": "shoot--dev--a", "keep_objects": false,
			"objects": [` + inlineService + `], "files": ["objects.yaml"]}`,
		"customised": `{"cluster": {"name": "seed"}, "namespace": "garden", "name": "extension-foo", "class": "seed",
			"keep_objects": true, "inject_labels": {"z": "1", "a": "2"}, "objects": [` + inlineService + `]}`,
	})
}

func TestRenderFacts(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "extension_chart", Dir: "testdata", Config: rendertest.FromJSON(t,
		`{"cluster": {"name": "seed"}, "namespace": "shoot--dev--a", "objects": [`+inlineService+`], "files": ["objects.yaml"]}`)})
	require.NoError(t, err)
	assert.Equal(t, "extension-chart", out.Outputs["name"].AsString(), "the name defaults to the instance name with dashes")
	require.Len(t, out.Objects, 2)
	for _, o := range out.Objects {
		assert.Equal(t, "seed", o.Cluster)
		assert.Equal(t, "shoot--dev--a", o.Object.GetNamespace())
	}
	// Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md: the Secret is named
	// managedresource-<name>.
	secret := rendertest.MustFind(t, out.Objects, "Secret", "managedresource-extension-chart")
	assert.Equal(t, "true", secret.GetLabels()[ContentsLabel])
	data, _, _ := unstructured.NestedStringMap(secret.Object, "stringData")
	assert.Len(t, data, 3, "inline object, ConfigMap and the List's Deployment")
	var svc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(data["service__kube-system__svc.yaml"]), &svc))
	assert.Contains(t, data["service__kube-system__svc.yaml"], "port: 80\n", "whole numbers stay integers")
	assert.Contains(t, data, "deployment__default__web.yaml")

	mr := rendertest.MustFind(t, out.Objects, "ManagedResource", "extension-chart")
	_, hasClass, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.False(t, hasClass, "no class: the shoot's resource manager")
	refs, _, _ := unstructured.NestedSlice(mr.Object, "spec", "secretRefs")
	assert.Equal(t, []any{map[string]any{"name": "managedresource-extension-chart"}}, refs)
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"objects not a list", `{"cluster": {"name": "seed"}, "namespace": "garden", "objects": "x"}`, "objects must be a list of objects"},
		{"element not an object", `{"cluster": {"name": "seed"}, "namespace": "garden", "objects": ["x"]}`, "objects[0] is not an object"},
		{"object without name", `{"cluster": {"name": "seed"}, "namespace": "garden", "objects": [{"apiVersion": "v1", "kind": "ConfigMap"}]}`, "object 1 has no apiVersion, kind or metadata.name"},
		{"missing file", `{"cluster": {"name": "seed"}, "namespace": "garden", "files": ["nope.yaml"]}`, "file nope.yaml"},
		{"no namespace", `{"cluster": {"name": "seed"}, "objects": []}`, "name and namespace are required"},
		{"invalid name", `{"cluster": {"name": "seed"}, "namespace": "garden", "name": "Foo_Bar", "objects": []}`, "name is invalid"},
		{"unknown attribute", `{"cluster": {"name": "seed"}, "namespace": "garden", "replicas": 1}`, `unknown field "replicas"`},
		{"same object twice", `{"cluster": {"name": "seed"}, "namespace": "garden", "objects": [` + inlineService + `,` + inlineService + `]}`, "packed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Name: "mr", Dir: "testdata", Config: rendertest.FromJSON(t, tt.config)})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestRenderDefersUnknownNames(t *testing.T) {
	for _, config := range []string{
		`{"cluster": {"name": "seed"}, "namespace": "${known after apply}", "objects": []}`,
		`{"cluster": {"name": "seed"}, "namespace": "garden", "files": ["${known after apply}.yaml"]}`,
	} {
		_, err := Type.RenderConfig(render.Input{Name: "mr", Dir: "testdata", Config: rendertest.FromJSON(t, config)})
		assert.True(t, errors.Is(err, render.ErrDeferred), "%s: %v", config, err)
	}
}
