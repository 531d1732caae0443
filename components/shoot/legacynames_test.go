package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// TestExtensionResourcesKeepTheirEarlierNames: a new shoot's Infrastructure and ControlPlane are
// named after the shoot, as gardenlet names them; a shoot whose Infrastructure an earlier version
// created as "infrastructure" keeps that name, and the plan says why: renaming it would make the
// provider delete the shoot's infrastructure.
func TestExtensionResourcesKeepTheirEarlierNames(t *testing.T) {
	names := func(ps map[string]render.Component, part string) []string {
		var out []string
		for _, o := range ps[part].Objects {
			out = append(out, o.Object.GetName())
		}
		return out
	}
	fresh := parts(t, values(nil))
	assert.Equal(t, []string{"dev"}, names(fresh, "infrastructure"))
	assert.Equal(t, []string{"dev"}, names(fresh, "control_plane"))
	assert.NotContains(t, fresh["infrastructure"].Note, "earlier version")

	legacy := func(resource, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "extensions.gardener.cloud/v1alpha1", "kind": resource,
			"metadata": map[string]any{"name": name, "namespace": "shoot--local--dev"},
		}}
	}
	v := values(nil)
	v.Name = "dev"
	out, err := Type.Render(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observingByName(map[string]*unstructured.Unstructured{
		"infrastructures/shoot--local--dev/infrastructure": legacy("Infrastructure", "infrastructure"),
	})}, v)
	require.NoError(t, err)
	ps := map[string]render.Component{}
	for _, p := range out.Components {
		ps[p.Name] = p
	}
	assert.Equal(t, []string{"infrastructure"}, names(ps, "infrastructure"))
	assert.Contains(t, ps["infrastructure"].Note, "keeps its name infrastructure from an earlier version")
	assert.Equal(t, []string{"dev"}, names(ps, "control_plane"), "only what exists under the old name keeps it")
	assert.NotContains(t, ps["control_plane"].Note, "earlier version")
}
