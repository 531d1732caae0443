package garden

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
)

// The virtual garden's API server is that of a cluster without nodes, labelled app=kubernetes.
func TestVirtualGardenKubeAPIServer(t *testing.T) {
	kapi := partsOf(t, values(nil))["virtual_garden_kube_apiserver"]
	d := rendertest.MustFind(t, kapi.Objects, "Deployment", "virtual-garden-kube-apiserver")
	selector, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
	assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, selector)
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var args []string
	for _, a := range containers[0].(map[string]any)["args"].([]any) {
		args = append(args, a.(string))
	}
	require.NotEmpty(t, args)
	assert.Contains(t, args, "--runtime-config=apps/v1=false,autoscaling/v2=false,batch/v1=false,discovery.k8s.io/v1=false,policy/v1=false,storage.k8s.io/v1/csinodes=false")
	for _, a := range args {
		assert.False(t, strings.HasPrefix(a, "--event-ttl"), "a Garden has no default event TTL")
	}
}
