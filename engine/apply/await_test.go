package apply

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
)

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// followingInstallation renders a ConfigMap named after the live ConfigMap garden/installation,
// which another controller creates, once it exists.
func followingInstallation() *render.Await {
	return &render.Await{
		For: "ConfigMap garden/installation",
		Render: func(in render.Input) (*render.Awaited, error) {
			live, err := in.Observed(render.LiveRef{Cluster: "seed", Version: "v1", Resource: "configmaps", Namespace: "garden", Name: "installation"})
			if err != nil || live == nil {
				return nil, err
			}
			name, _, _ := unstructured.NestedString(live.Object, "data", "name")
			return &render.Awaited{Objects: []render.Object{{Cluster: "seed", DefaultNamespace: "garden", Object: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "for-" + name},
			}}}}}, nil
		},
	}
}

func awaitExecutor(client dynamic.Interface, timeout time.Duration) *Executor {
	e := &Executor{Clients: map[string]dynamic.Interface{"seed": client}, Timeout: timeout,
		Awaits: map[string]*Awaited{"component.extension.x.installation_seed": {Await: followingInstallation(), Input: render.Input{Landscape: "l"}}},
		Served: func(cluster string, gk schema.GroupKind) (observe.Resource, bool) {
			return observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true}, cluster == "seed" && gk.Kind == "ConfigMap"
		},
	}
	e.Restamp = func(d *plan.Desired) error { return inventory.Stamp(d.Object, "l", string(d.Component), nil) }
	return e
}

func TestAwaitedPartIsRenderedOnceItsObjectAppears(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	e := awaitExecutor(client, 10*time.Second)
	go func() {
		time.Sleep(1500 * time.Millisecond) // the other controller creates it while apply polls
		_, _ = client.Resource(configMapsGVR).Namespace("garden").Create(context.Background(), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "installation", "namespace": "garden"},
			"data": map[string]any{"name": "x7k2p"},
		}}, metav1.CreateOptions{})
	}()
	co, err := e.awaitedObjects(context.Background(), &plan.Component{Address: "component.extension.x.installation_seed", Action: plan.Read})
	require.NoError(t, err)
	require.Len(t, co.writes, 1)
	d := co.all[0]
	assert.Equal(t, "for-x7k2p", d.Object.GetName())
	assert.Equal(t, "garden", d.Object.GetNamespace(), "the default namespace of a namespaced kind")
	assert.Equal(t, "l", d.Object.GetLabels()[inventory.LandscapeLabel], "stamped as the plan stamps its objects")
	assert.Equal(t, co.all, co.awaited, "waited for like any part's objects")
}

func TestAwaitedPartFailsWhenItsObjectNeverAppears(t *testing.T) {
	e := awaitExecutor(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), 1500*time.Millisecond)
	_, err := e.awaitedObjects(context.Background(), &plan.Component{Address: "component.extension.x.installation_seed", Action: plan.Read})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ConfigMap garden/installation still does not exist after 1.5s")
}

// discoveringCluster serves the kinds of its current discovery; RefreshDiscovery makes it read
// the server's newer answer, as the live client drops its cached discovery.
type discoveringCluster struct {
	observe.Cluster
	cached, server []observe.Resource
}

func (c *discoveringCluster) Resources(context.Context) ([]observe.Resource, error) {
	return c.cached, nil
}

func (c *discoveringCluster) RefreshDiscovery(context.Context) error {
	c.cached = c.server
	return nil
}

// A part rendered during apply may be of a kind whose CRD the same apply created after the plan
// read discovery: the kind is looked up again in fresh discovery instead of failing the part.
func TestServedResourcesReadsDiscoveryAgainForAKindItLacks(t *testing.T) {
	cm := observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true}
	mr := observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "resources.gardener.cloud", Version: "v1alpha1", Kind: "ManagedResource"}, Resource: "managedresources", Namespaced: true}
	seed := &discoveringCluster{cached: []observe.Resource{cm}, server: []observe.Resource{cm, mr}}
	out := &planner.Outcome{Clusters: map[string]observe.Cluster{"seed": seed}, Result: &plan.Result{Observed: map[string]*observe.Observed{}}}
	served := servedResources(context.Background(), out)

	r, ok := served("seed", cm.GroupKind())
	require.True(t, ok)
	assert.Equal(t, cm, r)
	r, ok = served("seed", mr.GroupKind())
	require.True(t, ok, "found after discovery was read again")
	assert.Equal(t, mr, r)
	_, ok = served("seed", schema.GroupKind{Group: "example.com", Kind: "Missing"})
	assert.False(t, ok)
	_, ok = served("other", cm.GroupKind())
	assert.False(t, ok, "a cluster the landscape does not have serves nothing")
}
