package apply

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/render"
)

func record(values ...string) *plan.Desired {
	list := make([]any, len(values))
	for i, v := range values {
		list[i] = v
	}
	return &plan.Desired{Cluster: "seed", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "extensions.gardener.cloud/v1alpha1", "kind": "DNSRecord",
		"metadata": map[string]any{"name": "r", "namespace": "garden"}, "spec": map[string]any{"values": list},
	}}}
}

func servicesClient(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{{Version: "v1", Resource: "services"}: "ServiceList"}, objs...)
}

func TestResolveLiveWaitsAndFailsClearly(t *testing.T) {
	lb := render.LoadBalancerAddress("seed", "garden", "nginx")
	svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "nginx", "namespace": "garden"},
		"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "10.0.0.9"}}}}}}

	t.Run("resolved", func(t *testing.T) {
		client := servicesClient(svc)
		e := &Executor{Clients: map[string]dynamic.Interface{"seed": client}, Timeout: time.Second}
		d, err := e.resolveLive(context.Background(), "c", record(render.LiveValue(lb), render.LiveValue(lb.WithAs(render.AsRecordType))))
		require.NoError(t, err)
		assert.Equal(t, []any{"10.0.0.9", "A"}, d.Object.Object["spec"].(map[string]any)["values"])
		gets := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "get" {
				gets++
			}
		}
		assert.Equal(t, 1, gets, "one read of the Service for both fields")
	})
	t.Run("never set", func(t *testing.T) {
		e := &Executor{Clients: map[string]dynamic.Interface{"seed": servicesClient()}, Timeout: time.Second}
		_, err := e.resolveLive(context.Background(), "c", record(render.LiveValue(lb)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "DNSRecord r: status.loadBalancer.ingress.0.ip or status.loadBalancer.ingress.0.hostname of services garden/nginx in cluster seed still not set after 1s")
	})
	t.Run("forbidden ends the wait at once", func(t *testing.T) {
		client := servicesClient()
		client.PrependReactor("get", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "nginx", nil)
		})
		e := &Executor{Clients: map[string]dynamic.Interface{"seed": client}, Timeout: time.Minute}
		start := time.Now()
		_, err := e.resolveLive(context.Background(), "c", record(render.LiveValue(lb)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "forbidden")
		assert.Less(t, time.Since(start), 10*time.Second)
	})
	t.Run("unknown cluster", func(t *testing.T) {
		e := &Executor{Clients: map[string]dynamic.Interface{}, Timeout: time.Minute}
		_, err := e.resolveLive(context.Background(), "c", record(render.LiveValue(lb)))
		assert.ErrorContains(t, err, "cluster seed is not one of the landscape's")
	})
}
