package views

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
)

func desiredObject(cluster string, component config.InstanceAddress, kind, name string, extra map[string]any) *plan.Desired {
	obj := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}
	for k, v := range extra {
		obj[k] = v
	}
	return &plan.Desired{Cluster: cluster, Component: component, Object: &unstructured.Unstructured{Object: obj}}
}

// Files come per cluster and component, numbered in apply order whatever order the objects came
// in, with every object as given (Secrets included), readable by the owner only.
func TestWriteManifests(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	order := []config.InstanceAddress{"component.namespace.apps", `component.manifests.settings["a b"]`, "component.manifests.virtual"}
	desired := []*plan.Desired{
		desiredObject("runtime", order[1], "ConfigMap", "one", map[string]any{"data": map[string]any{"k": "v"}}),
		desiredObject("virtual", order[2], "Namespace", "garden", nil),
		desiredObject("runtime", order[0], "Namespace", "apps", nil),
		desiredObject("runtime", order[1], "Secret", "two", map[string]any{"data": map[string]any{"password": "c2VjcmV0"}}),
	}
	files, err := WriteManifests(dir, desired, order)
	require.NoError(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	assert.ElementsMatch(t, []string{
		"runtime/0001-component.namespace.apps.yaml",
		"runtime/0002-component.manifests.settings__a_b__.yaml",
		"virtual/0003-component.manifests.virtual.yaml",
	}, paths)

	data, err := os.ReadFile(filepath.Join(dir, "runtime/0002-component.manifests.settings__a_b__.yaml"))
	require.NoError(t, err)
	docs := strings.Split(strings.TrimPrefix(string(data), "---\n"), "---\n")
	require.Len(t, docs, 2, "both objects of the component, in the order given")
	var secret map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(docs[1]), &secret))
	assert.Equal(t, map[string]any{"password": "c2VjcmV0"}, secret["data"], "Secrets as the cluster receives them")

	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	info, err = os.Stat(filepath.Join(dir, "runtime/0001-component.namespace.apps.yaml"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	// A directory with files in it is refused: they would be applied with the new ones.
	_, err = WriteManifests(dir, desired, order)
	assert.ErrorContains(t, err, "is not empty")
}

func TestWriteManifestsNumbersSortForLargeLandscapes(t *testing.T) {
	order := make([]config.InstanceAddress, 12000)
	for i := range order {
		order[i] = config.InstanceAddress("component.manifests.c" + strconv.Itoa(i))
	}
	desired := []*plan.Desired{desiredObject("runtime", order[9], "ConfigMap", "early", nil), desiredObject("runtime", order[10999], "ConfigMap", "late", nil)}
	files, err := WriteManifests(t.TempDir(), desired, order)
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.True(t, strings.HasPrefix(filepath.Base(files[0].Path), "00010-"), files[0].Path)
	assert.True(t, strings.HasPrefix(filepath.Base(files[1].Path), "11000-"), files[1].Path)
	assert.Less(t, filepath.Base(files[0].Path), filepath.Base(files[1].Path))
}

func TestWriteManifestsRefusesCollidingNames(t *testing.T) {
	order := []config.InstanceAddress{`component.manifests.x["a b"]`, `component.manifests.x["a_b"]`}
	_, err := WriteManifests(t.TempDir(), []*plan.Desired{
		desiredObject("runtime", order[0], "ConfigMap", "one", nil),
		desiredObject("runtime", order[0], "ConfigMap", "two", nil),
	}, order)
	require.NoError(t, err, "different numbers keep them apart")
	_, err = WriteManifests(t.TempDir(), []*plan.Desired{
		desiredObject("runtime", order[0], "ConfigMap", "one", nil),
		desiredObject("runtime", order[1], "ConfigMap", "two", nil),
	}, []config.InstanceAddress{})
	assert.ErrorContains(t, err, "would both be written")
}

// Keys whose digits go-yaml v2 compares as numbers have no order of its own: the same object must
// still be written the same on every run, with the keys in byte order.
func TestManifestKeysInByteOrder(t *testing.T) {
	annotations := map[string]any{}
	keys := []string{"secret-91bdc8f9", "secret-389fbba5", "secret-998b2966", "secret-3055c21f", "secret-3ddd1800", "secret-17c26aa4", "secret-a92da147"}
	for _, k := range keys {
		annotations[k] = "x"
	}
	obj := map[string]any{"metadata": map[string]any{"annotations": annotations}, "spec": map[string]any{"replicas": int64(2), "ratio": 0.5}}
	first, err := marshalYAML(obj)
	require.NoError(t, err)
	for range 50 {
		again, err := marshalYAML(obj)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
	sorted := slices.Sorted(slices.Values(keys))
	var want strings.Builder
	want.WriteString("metadata:\n  annotations:\n")
	for _, k := range sorted {
		want.WriteString("    " + k + ": x\n")
	}
	want.WriteString("spec:\n  ratio: 0.5\n  replicas: 2\n")
	assert.Equal(t, want.String(), string(first))
}
