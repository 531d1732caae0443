package rendering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Render functions list live objects through the renderer: each list is read once per plan
// (every extension lists the same Shoots), each caller gets copies it may change, and a list
// of a cluster the instance does not know fails.
func TestListerReadsEachListOnce(t *testing.T) {
	r := NewRenderer(render.Registry{}, t.TempDir())
	reads := 0
	r.List = func(cluster cty.Value, gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
		reads++
		assert.Equal(t, "virtual", cluster.GetAttr("name").AsString())
		assert.Equal(t, schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}, gvr)
		assert.Equal(t, "garden-dev", namespace)
		assert.Equal(t, "gardener.cloud/role", selector)
		return []unstructured.Unstructured{*kobject("core.gardener.cloud/v1beta1", "Shoot", "garden-dev", "a", nil)}, nil
	}
	list := r.lister(map[string]cty.Value{"virtual": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("virtual")})}, true)
	ref := render.ListRef{Cluster: "virtual", Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots", Namespace: "garden-dev", LabelSelector: "gardener.cloud/role"}

	first, err := list(ref)
	require.NoError(t, err)
	require.Len(t, first, 1)
	first[0].SetName("changed")
	second, err := list(ref)
	require.NoError(t, err)
	assert.Equal(t, "a", second[0].GetName(), "a caller's change does not reach the next")
	assert.Equal(t, 1, reads)

	_, err = list(render.ListRef{Cluster: "elsewhere", Version: "v1", Resource: "secrets"})
	assert.ErrorContains(t, err, `cluster "elsewhere" is no cluster block`)

	var none render.Input
	items, err := none.Listed(ref)
	require.NoError(t, err)
	assert.Empty(t, items, "without clusters nothing is listed")
}
