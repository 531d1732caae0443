package images

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImage(t *testing.T) {
	v := Default()
	got, err := v.Image(GardenerAPIServer, "")
	require.NoError(t, err)
	assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/apiserver:"+GardenerVersion, got)
	got, err = v.Image(KubeAPIServer, "1.31.1")
	require.NoError(t, err)
	assert.Equal(t, "registry.k8s.io/kube-apiserver:v1.31.1", got)
	_, err = v.Image(KubeAPIServer, "")
	assert.ErrorContains(t, err, "tagged by Kubernetes version")
	_, err = v.Image("nope", "")
	assert.ErrorContains(t, err, `image "nope" is not in the image vector`)
}

func TestOverride(t *testing.T) {
	tests := []struct {
		name, ref, want, err string
	}{
		{"repository and tag", "mirror.local:5000/gardener/apiserver:v1.121.0", "mirror.local:5000/gardener/apiserver:v1.121.0", ""},
		{"digest", "mirror.local/apiserver@sha256:abc", "mirror.local/apiserver@sha256:abc", ""},
		{"bare tag keeps the repository", "v1.119.2", "europe-docker.pkg.dev/gardener-project/releases/gardener/apiserver:v1.119.2", ""},
		{"no tag", "mirror.local/apiserver", "", "has no tag"},
		{"empty", "", "", "empty image reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Default().Override(map[string]string{GardenerAPIServer: tt.ref})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			got, err := v.Image(GardenerAPIServer, "")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := Default().Override(map[string]string{"gardener-apiservr": "x:1"})
	assert.ErrorContains(t, err, "not in the image vector")
	d := Default()
	_, err = d.Override(map[string]string{GardenerAPIServer: "x:1"})
	require.NoError(t, err)
	assert.Equal(t, GardenerVersion, d[GardenerAPIServer].Tag, "Override leaves the receiver alone")
}

// docs/landscapes.md lists the image vector; every entry must be in it with its default tag.
func TestDocumentationListsEveryImage(t *testing.T) {
	doc, err := os.ReadFile("../../docs/landscapes.md")
	require.NoError(t, err)
	for name, img := range Default() {
		row := "| `" + name + "` | " + img.Repository + " | "
		assert.Contains(t, string(doc), row, "docs/landscapes.md lists %s", name)
		if img.Tag != "" && img.Tag != GardenerVersion {
			assert.Contains(t, string(doc), row+img.Tag+" |", "docs/landscapes.md names the default tag of %s", name)
		}
	}
}
