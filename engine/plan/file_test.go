package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
)

func TestSavedPlanRoundTripWithoutSecrets(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "apps"},
		"data": map[string]any{"token": "c2VjcmV0"},
	}}
	config := cm("apps", "c", map[string]any{"dsn": "postgres://u:hunter22@db", "plain": "visible"})
	for _, u := range []*unstructured.Unstructured{secret, config} {
		require.NoError(t, inventory.Stamp(u, "test", "component.manifests.a", func(obj map[string]any) { redactInPlace(obj, render.NewRedactor([]string{"hunter22"})) }))
	}
	res := &Result{
		Plan:     &Plan{FormatVersion: FormatVersion, Landscape: "test", Components: []*Component{}},
		Desired:  []*Desired{{Cluster: "runtime", Component: "component.manifests.a", Object: secret}, {Cluster: "runtime", Component: "component.manifests.a", Object: config}},
		Redactor: render.NewRedactor([]string{"hunter22"}),
	}
	path := filepath.Join(t.TempDir(), "plan.bin")
	vars := map[string]Variable{"password": {Sensitive: true}, "replicas": {Type: []byte(`"number"`), Value: []byte(`3`)}}
	require.NoError(t, WriteFile(path, NewFile("/landscape", res, vars)))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "hunter22", "the file is compressed, but check anyway")

	f, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "/landscape", f.Dir)
	assert.Equal(t, vars, f.Variables)
	require.Len(t, f.Objects, 2)
	assert.True(t, f.Objects[0].Redacted)
	assert.Equal(t, map[string]any{"token": Redacted}, f.Objects[0].Object["data"])
	assert.Equal(t, inventory.AppliedHash(secret), f.Objects[0].Hash)
	assert.True(t, f.Objects[1].Redacted)
	assert.Equal(t, map[string]any{"dsn": Redacted, "plain": "visible"}, f.Objects[1].Object["data"])
	// The stored objects were copied: the plan's own objects keep their values for apply.
	assert.Equal(t, "c2VjcmV0", secret.Object["data"].(map[string]any)["token"])

	require.NoError(t, os.WriteFile(path, []byte("not gzip"), 0o600))
	_, err = ReadFile(path)
	assert.ErrorContains(t, err, "is not a saved plan")
}
