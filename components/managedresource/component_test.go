package managedresource

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
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
	// The Secret is named managedresource-<name>-<checksum of its data>, immutable and
	// garbage-collectable (NewSecret in pkg/utils/managedresources/managedresources.go at
	// gardener/gardener v1.120.0).
	secret := secretOf(t, out.Objects).Object
	assert.Regexp(t, `^managedresource-extension-chart-[0-9a-f]{8}$`, secret.GetName())
	assert.Equal(t, "true", secret.GetLabels()[ContentsLabel])
	assert.Equal(t, "true", secret.GetLabels()["resources.gardener.cloud/garbage-collectable-reference"])
	immutable, _, _ := unstructured.NestedBool(secret.Object, "immutable")
	assert.True(t, immutable)
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
	assert.Equal(t, []any{map[string]any{"name": secret.GetName()}}, refs)
	// The garbage collector keeps the Secret only while a reference annotation names it
	// (pkg/resourcemanager/controller/garbagecollector at v1.120.0).
	assert.Equal(t, map[string]string{unique.AnnotationKey("secret", secret.GetName()): secret.GetName()}, mr.GetAnnotations())
	keep, found, _ := unstructured.NestedBool(mr.Object, "spec", "keepObjects")
	assert.True(t, found, "keepObjects is set explicitly, false included, as Gardener does")
	assert.False(t, keep)
}

// secretOf is the one Secret among objs.
func secretOf(t *testing.T, objs []render.Object) render.Object {
	t.Helper()
	for _, o := range objs {
		if o.Object.GetKind() == "Secret" {
			return o
		}
	}
	t.Fatal("no Secret rendered")
	return render.Object{}
}

// TestPackNamesTheSecretAfterItsContents: the same objects give the same name, other objects
// another, and the Secret supersedes the earlier names of its ManagedResource's Secret, the one
// without a checksum included, which the engine created before the Secrets were immutable.
func TestPackNamesTheSecretAfterItsContents(t *testing.T) {
	cm := func(data string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "namespace": "kube-system"}, "data": map[string]any{"k": data}}}
	}
	pack := func(data string) render.Object {
		objs, err := Pack(ForShoot("seed", "shoot--dev--a", "shoot-core-x", false, []*unstructured.Unstructured{cm(data)}))
		require.NoError(t, err)
		return secretOf(t, objs)
	}
	a, again, b := pack("1"), pack("1"), pack("2")
	assert.Equal(t, a.Object.GetName(), again.Object.GetName())
	assert.NotEqual(t, a.Object.GetName(), b.Object.GetName())
	require.NotNil(t, a.Supersedes)
	for _, old := range []string{"managedresource-shoot-core-x", b.Object.GetName()} {
		assert.True(t, a.Supersedes.MatchString(old), old)
	}
	for _, other := range []string{"managedresource-shoot-core-x-y", "managedresource-shoot-core-xy-12345678", "managedresource-shoot-core-x-1234567"} {
		assert.False(t, a.Supersedes.MatchString(other), other)
	}
}

// TestForShoot: Gardener's own shoot ManagedResources carry origin=gardener and inject
// shoot.gardener.cloud/no-cleanup=true (NewForShoot in pkg/utils/managedresources at v1.120.0).
func TestForShoot(t *testing.T) {
	objs, err := Pack(ForShoot("seed", "shoot--dev--a", "shoot-core-x", true, nil))
	require.NoError(t, err)
	mr := rendertest.MustFind(t, objs, "ManagedResource", "shoot-core-x")
	assert.Equal(t, map[string]string{"origin": "gardener"}, mr.GetLabels())
	inject, _, _ := unstructured.NestedStringMap(mr.Object, "spec", "injectLabels")
	assert.Equal(t, map[string]string{"shoot.gardener.cloud/no-cleanup": "true"}, inject)
	keep, _, _ := unstructured.NestedBool(mr.Object, "spec", "keepObjects")
	assert.True(t, keep)
	_, hasClass, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.False(t, hasClass)
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

// TestPackWithGeneratedSecretsStaysMutable: a Secret holding generated certificates is renewed in
// place by the engine under the same name, so it is not immutable; every other one is.
func TestPackWithGeneratedSecretsStaysMutable(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "client", "namespace": "kube-system"},
		"data":     map[string]any{"tls.crt": render.GeneratedRef("shoot--dev--a", "client", "tls.crt", true)}}}
	objs, err := Pack(ForShoot("seed", "shoot--dev--a", "shoot-core-x", false, []*unstructured.Unstructured{secret}))
	require.NoError(t, err)
	s := secretOf(t, objs).Object
	_, found, _ := unstructured.NestedBool(s.Object, "immutable")
	assert.False(t, found, "mutable")
	assert.Regexp(t, `^managedresource-shoot-core-x-[0-9a-f]{8}$`, s.GetName(), "still named after its rendering")
	assert.Equal(t, "true", s.GetLabels()["resources.gardener.cloud/garbage-collectable-reference"])
}
