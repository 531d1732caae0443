package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/state"
)

// A state that cannot be read is read once: prefetching reads it before rendering, and the
// plan reports that read's error where it always did, without reading again.
func TestPrefetchReadsTheStateOnceAndThePlanReportsItsError(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "landscape.hcl"), []byte(`
landscape "small" {}

cluster "runtime" {
  context = "runtime"
}

component "manifests" "settings" {
  cluster   = cluster.runtime
  namespace = "default"
  objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings" } }]
}
`), 0o644))
	reads := 0
	_, diags, err := Plan(context.Background(), Options{
		Dir: dir, Schemas: catalog.Schemas(), Renderers: render.Registry{"manifests": manifests.Type.RenderConfig},
		Connect: func(string, cluster.Access) (observe.Cluster, error) {
			return nil, errors.New("no cluster in this test")
		},
		Prefetch: true,
		ReadState: func(*config.Result) (*state.State, error) {
			reads++
			return nil, errors.New("state secret: forbidden")
		},
	})
	require.False(t, diags.HasErrors(), diags.Error())
	require.ErrorContains(t, err, "forbidden")
	assert.Equal(t, 1, reads)
}

// The prefetch lists a kind in the version the state records its objects of a cluster in, where
// it records one: the version observation lists it in while the landscape writes the same.
func TestRecordedVersionsAreOnePerKindAndCluster(t *testing.T) {
	st := state.Empty("small")
	st.Components["component.istio.gateways"] = &state.Component{Objects: []state.Object{
		{Cluster: "runtime", Group: "networking.istio.io", Version: "v1beta1", Kind: "Gateway", Namespace: "garden", Name: "a"},
		{Cluster: "runtime", Group: "networking.istio.io", Version: "v1beta1", Kind: "Gateway", Namespace: "garden", Name: "b"},
		{Cluster: "runtime", Group: "networking.istio.io", Version: "v1", Kind: "VirtualService", Namespace: "garden", Name: "a"},
		{Cluster: "seed", Group: "networking.istio.io", Version: "v1", Kind: "Gateway", Namespace: "garden", Name: "a"},
	}, Pending: []state.Object{
		{Cluster: "runtime", Group: "networking.istio.io", Version: "v1beta1", Kind: "VirtualService", Namespace: "garden", Name: "b"},
	}}
	assert.Equal(t, map[k8sschema.GroupKind]string{{Group: "networking.istio.io", Kind: "Gateway"}: "v1beta1"}, recordedVersions(st, "runtime"),
		"the VirtualServices are recorded in two versions: the preferred one is listed")
	assert.Equal(t, map[k8sschema.GroupKind]string{{Group: "networking.istio.io", Kind: "Gateway"}: "v1"}, recordedVersions(st, "seed"))
}
