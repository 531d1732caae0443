package rendering

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/render"
)

// awaitingPart is a part that follows the ConfigMap garden/installation another controller
// creates: once it exists, it renders a ConfigMap named after the installation's data.
func awaitingPart() render.Component {
	return render.Component{Name: "installation", Type: "extension_installation", Await: &render.Await{
		For: "ConfigMap garden/installation",
		Render: func(in render.Input) (*render.Awaited, error) {
			live, err := in.Observed(render.LiveRef{Cluster: "runtime", Version: "v1", Resource: "configmaps", Namespace: "garden", Name: "installation"})
			if err != nil || live == nil {
				return nil, err
			}
			name, _, _ := unstructured.NestedString(live.Object, "data", "name")
			return &render.Awaited{Objects: []render.Object{configMap("for-"+name, nil)}}, nil
		},
	}}
}

func TestAwaitedPartIsDeferredWhileItsObjectIsMissing(t *testing.T) {
	r, err := renderComposite(t, []render.Component{awaitingPart()})
	require.NoError(t, err)
	part := r.Rendered["garden.local.installation"]
	assert.Equal(t, []string{AwaitingPrefix + "ConfigMap garden/installation"}, part.Deferred, "rendered during apply")
	assert.Empty(t, part.Objects)
	require.NotNil(t, part.Await, "apply renders it with the part's own function")
}

func TestAwaitedPartIsRenderedOnceItsObjectExists(t *testing.T) {
	live := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "installation", "namespace": "garden"},
		"data": map[string]any{"name": "abcde"},
	}}
	r, err := renderCompositeWith(t, func(r *Renderer) {
		r.Get = func(cty.Value, k8sschema.GroupVersionResource, string, string) (*unstructured.Unstructured, error) {
			return live, nil
		}
	}, []render.Component{awaitingPart()})
	require.NoError(t, err)
	part := r.Rendered["garden.local.installation"]
	assert.Empty(t, part.Deferred)
	require.Len(t, part.Objects, 1)
	assert.Equal(t, "for-abcde", part.Objects[0].Object.GetName())
}

func TestAwaitedPartErrors(t *testing.T) {
	failing := awaitingPart()
	failing.Await.Render = func(render.Input) (*render.Awaited, error) { return nil, errors.New("two installations") }
	_, err := renderComposite(t, []render.Component{failing})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "part installation: two installations")

	withObjects := awaitingPart()
	withObjects.Objects = []render.Object{configMap("x", nil)}
	_, err = renderComposite(t, []render.Component{withObjects})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a part that awaits an object renders its objects itself")
}
