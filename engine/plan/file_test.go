package plan

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/bounded"
)

func TestSavedPlanRoundTripWithoutSecrets(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "apps"},
		"data": map[string]any{"token": "c2VjcmV0"},
	}}
	config := cm("apps", "c", map[string]any{"dsn": "postgres://u:hunter22@db", "plain": "visible"})
	for _, u := range []*unstructured.Unstructured{secret, config} {
		require.NoError(t, inventory.Stamp(u, "test", "component.manifests.a", func(obj map[string]any) { redactInPlace(obj, render.NewRedactor([]string{"hunter22"}), nil) }))
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

// A saved plan is gzip: a small file must not make gardener decompress gigabytes. A megabyte
// that expands to a gigabyte of one JSON string (which the decoder would hold whole) is refused
// within a second and in bounded memory.
func TestSavedPlanDecompressionIsCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bomb.plan")
	bomb := bounded.GzipBomb(`{"format_version":"1","dir":"`, 1<<30, `"}`)
	require.Less(t, len(bomb), 2<<20, "the file is small")
	require.NoError(t, os.WriteFile(path, bomb, 0o600))
	err := bounded.Run(t, bounded.Default, func() error { _, err := ReadFile(path); return err })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decompresses to more than 64 MiB")
	assert.Contains(t, err.Error(), path)
}

func TestPlanLimit(t *testing.T) {
	assert.Equal(t, int64(MinPlanLimit), planLimit(1<<10), "small plans may always take 64 MiB")
	assert.Equal(t, int64(50*(20<<20)), planLimit(20<<20), "large ones 50 times their size")
	assert.Equal(t, int64(MaxPlanSize), planLimit(100<<20), "and never more than 1 GiB")

	r := &cappedReader{r: strings.NewReader("abcd"), left: 4}
	data, err := io.ReadAll(r)
	assert.NoError(t, err, "a stream that ends at the limit is whole")
	assert.Equal(t, "abcd", string(data))
	r = &cappedReader{r: strings.NewReader("abcde"), left: 4}
	_, err = io.ReadAll(r)
	assert.ErrorIs(t, err, errCapped)
	assert.True(t, r.exceeded)
}

// TestSavedPlanFormatVersions: files of earlier versions ("1") read; a newer minor or major
// version is refused, since apply would ignore what it added.
func TestSavedPlanFormatVersions(t *testing.T) {
	tests := []struct {
		version, wantErr string
	}{
		{`"1"`, ""},
		{`"1.0"`, ""},
		{`"1.1"`, "has format version 1.1; this gardener reads version 1.0"},
		{`"2.0"`, "has format version 2.0; this gardener reads version 1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plan.bin")
			var buf strings.Builder
			zw := gzip.NewWriter(&buf)
			_, err := io.WriteString(zw, `{"format_version":`+tt.version+`,"dir":"/l","plan":{"format_version":"1.10","landscape":"l"}}`)
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			require.NoError(t, os.WriteFile(path, []byte(buf.String()), 0o600))
			f, err := ReadFile(path)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, FileFormatVersion, f.FormatVersion)
		})
	}
}
