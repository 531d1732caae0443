package crds

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/internal/crdgen"
)

// TestEmbeddedCRDsAreGeneratedFromThePin regenerates the CRDs from the pinned sources (Gardener's
// source tree beside the repository and the modules its go.mod pins) and compares them with the
// embedded files byte for byte: a change of the pin, of a source or of a file by hand fails here
// until `make crds` has written them again. Generating takes a few seconds once controller-gen is
// built (`make tools` builds it; the test builds it when it is missing).
func TestEmbeddedCRDsAreGeneratedFromThePin(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	source, err := crdgen.GardenerSource(root)
	require.NoError(t, err, "the CRDs are generated from Gardener's source tree")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	controllerGen, err := crdgen.EnsureControllerGen(ctx, source, filepath.Join(root, "bin"))
	require.NoError(t, err)
	want, err := crdgen.Generate(ctx, crdgen.Options{GardenerSource: source, ControllerGen: controllerGen})
	require.NoError(t, err)

	entries, err := fs.ReadDir(files, ".")
	require.NoError(t, err)
	embedded := map[string][]byte{}
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		require.NoError(t, err)
		embedded[e.Name()] = data
	}
	for name, data := range want {
		have, ok := embedded[name]
		if !assert.True(t, ok, "%s is generated but not embedded: run make crds", name) {
			continue
		}
		assert.True(t, bytes.Equal(data, have), "%s differs from what the pinned sources generate: run make crds", name)
	}
	for name, data := range embedded {
		if _, ok := want[name]; ok {
			continue
		}
		assert.False(t, bytes.HasPrefix(data, []byte(crdgen.GeneratedMarker)), "%s was generated but no source produces it any more: run make crds", name)
		// Only the prometheus-operator kinds are hand-written (see the package comment).
		assert.True(t, strings.HasPrefix(name, "monitoring.coreos.com_"), "%s is neither generated nor one of the hand-written monitoring.coreos.com kinds", name)
	}
}

// The facts Gardener v1.120.0's CRDs carry that the catalog relies on: gardenlet protects the
// extension and ManagedResource CRDs from deletion except the Cluster's, and the Vertical Pod
// Autoscaler's are kept when their ManagedResource goes; an OperatingSystemConfig's inline file
// content needs its encoding.
func TestGeneratedCRDsCarryGardenersMetadata(t *testing.T) {
	for _, tt := range []struct {
		name              string
		deletionProtected bool
		keepObject        bool
	}{
		{"workers.extensions.gardener.cloud", true, false},
		{"bastions.extensions.gardener.cloud", true, false},
		{"clusters.extensions.gardener.cloud", false, false},
		{"managedresources.resources.gardener.cloud", true, false},
		{"etcds.druid.gardener.cloud", true, false},
		{"machines.machine.sapcloud.io", true, false},
		{"verticalpodautoscalers.autoscaling.k8s.io", false, true},
		{"gateways.networking.istio.io", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			crd, err := Get(tt.name)
			require.NoError(t, err)
			if tt.deletionProtected {
				assert.Equal(t, "true", crd.Labels["gardener.cloud/deletion-protected"])
			} else {
				assert.NotContains(t, crd.Labels, "gardener.cloud/deletion-protected")
			}
			if tt.keepObject {
				assert.Equal(t, "true", crd.Annotations["resources.gardener.cloud/keep-object"])
			} else {
				assert.NotContains(t, crd.Annotations, "resources.gardener.cloud/keep-object")
			}
		})
	}

	osc, err := Get("operatingsystemconfigs.extensions.gardener.cloud")
	require.NoError(t, err)
	inline := osc.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["files"].Items.Schema.Properties["content"].Properties["inline"]
	assert.ElementsMatch(t, []string{"encoding", "data"}, inline.Required)
}
