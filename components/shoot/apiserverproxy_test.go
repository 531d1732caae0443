package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/shootsystem"
	"github.com/declarative-gardener/gardener/engine/render"
)

// shootObjectsOf are the objects a shoot ManagedResource of the part carries into the shoot.
func shootObjectsOf(t *testing.T, p render.Component) []*unstructured.Unstructured {
	t.Helper()
	_, shoot := pathObjects(t, map[string]render.Component{p.Name: p})
	return shoot
}

// TestAPIServerProxyFollowsTheAPIServerService: the apiserver-proxy listens on the
// kube-apiserver Service's cluster IP mapped into 240.0.0.0/8, the address the API server
// advertises. Before the Service exists the part is rendered during the apply that creates it,
// after the Service's part; once it exists, plans render it at once, with the same objects. It
// is deployed after the connection to the shoot and kube-scheduler, as gardenlet's "Deploying
// apiserver-proxy" (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go at v1.120.0),
// and deleted with the other system components once the Worker is gone.
func TestAPIServerProxyFollowsTheAPIServerService(t *testing.T) {
	before := byName(t, newParts(t, values(nil)))
	p, ok := before[apiServerProxyPart]
	require.True(t, ok)
	require.NotNil(t, p.Await, "the address is not known before the Service exists")
	assert.Empty(t, p.Objects)
	assert.Contains(t, p.Await.For, "cluster IP of Service shoot--local--dev/kube-apiserver")
	for _, d := range []string{"kube_apiserver_service", "kube_apiserver", "gardener_resource_manager", "kube_scheduler"} {
		assert.Contains(t, p.DependsOn, d)
	}
	kinds := []string{}
	for _, s := range p.Await.Shapes {
		kinds = append(kinds, s.Object.GetKind())
	}
	assert.Equal(t, []string{"Secret", "ManagedResource"}, kinds)
	assert.Contains(t, before["worker"].DeletionDependsOn, apiServerProxyPart, "the proxy stays while the nodes drain")

	applied := parts(t, values(nil))[apiServerProxyPart]
	var ds *unstructured.Unstructured
	for _, o := range shootObjectsOf(t, applied) {
		if o.GetKind() == "DaemonSet" && o.GetName() == "apiserver-proxy" {
			ds = o
		}
	}
	require.NotNil(t, ds, "the ManagedResource carries the DaemonSet")
	address, ok := flagOf(ds, "--ip-address")
	require.True(t, ok)
	assert.Equal(t, "240.2.170.21", address)

	// With the Service there, a plan renders the part at once, with the objects apply rendered.
	live := map[string]*unstructured.Unstructured{
		"services/shoot--local--dev/kube-apiserver": apiServerService("shoot--local--dev", exampleClusterIP),
	}
	v := values(nil)
	v.Name = "dev"
	out, err := Type.Render(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observingByName(live)}, v)
	require.NoError(t, err)
	var planned *render.Component
	for i := range out.Components {
		if out.Components[i].Name == apiServerProxyPart {
			planned = &out.Components[i]
		}
	}
	require.NotNil(t, planned)
	assert.Nil(t, planned.Await)
	assert.Equal(t, applied.Objects, planned.Objects)
	assert.Equal(t, shootsystem.APIServerProxyManagedResourceName, planned.Objects[1].Object.GetName())

	// A workerless shoot has no nodes to run it on.
	assert.NotContains(t, parts(t, values(workerless)), apiServerProxyPart)
}
