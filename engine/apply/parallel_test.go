package apply

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// writeLog records the server-side apply requests (PATCH) a client sends: when each started and
// ended, and how many were in flight at most.
type writeLog struct {
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	started     map[string]time.Time
	ended       map[string]time.Time
}

func (l *writeLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodPatch {
			return rt.RoundTrip(req)
		}
		name := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		l.mu.Lock()
		l.inFlight++
		l.maxInFlight = max(l.maxInFlight, l.inFlight)
		l.started[name] = time.Now()
		l.mu.Unlock()
		resp, err := rt.RoundTrip(req)
		l.mu.Lock()
		l.inFlight--
		l.ended[name] = time.Now()
		l.mu.Unlock()
		return resp, err
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// A component's objects of one kind rank are written at once, on the local control plane's API
// server: apply from empty is bound by the server's write rate, not by one round trip after
// another. The kind order holds: the Namespace is written before anything in it.
func TestApplyWritesObjectsOfOneKindRankAtOnce(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	const ns, count = "parallel-writes", 40
	deleteNamespaceAtEnd(t, cs, ns)
	log := &writeLog{started: map[string]time.Time{}, ended: map[string]time.Time{}}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit: what the executor sends goes out
	cfg.Wrap(log.wrap)
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)

	const addr = "component.manifests.many"
	component := &plan.Component{Address: addr, Action: plan.Create}
	var desired []*plan.Desired
	add := func(u *unstructured.Unstructured, resource string, namespaced bool) {
		desired = append(desired, &plan.Desired{Cluster: "runtime", Component: addr, Object: u,
			Resource: observe.Resource{GroupVersionKind: u.GroupVersionKind(), Resource: resource, Namespaced: namespaced}})
		component.Objects = append(component.Objects, &plan.ObjectChange{Cluster: "runtime", APIVersion: u.GetAPIVersion(),
			Ref: object.RefOf(u), Action: plan.Create, Reason: plan.Reason{Kind: plan.ReasonMissing}})
	}
	for i := range count { // listed before their Namespace: apply orders by kind, not by the plan
		config := readinessObject("v1", "ConfigMap", fmt.Sprintf("config-%02d", i), "")
		config.SetNamespace(ns)
		add(config, "configmaps", true)
	}
	namespace := &unstructured.Unstructured{}
	namespace.SetAPIVersion("v1")
	namespace.SetKind("Namespace")
	namespace.SetName(ns)
	add(namespace, "namespaces", false)

	e := &Executor{Clients: map[string]dynamic.Interface{"runtime": client}, Desired: desired}
	require.NoError(t, e.Apply(context.Background(), component))

	list, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	written := 0
	for _, item := range list.Items {
		if strings.HasPrefix(item.GetName(), "config-") {
			written++
		}
	}
	// kube-controller-manager publishes kube-root-ca.crt into the namespace in its own time.
	assert.Equal(t, count, written, "every ConfigMap")
	assert.Greater(t, log.maxInFlight, 1, "the ConfigMaps were written at once")
	for i := range count {
		name := fmt.Sprintf("config-%02d", i)
		assert.False(t, log.started[name].Before(log.ended[ns]), "%s was written after its Namespace", name)
	}
}

// BenchmarkComponentAgainstTheWriteFloor applies a component of 100 ConfigMaps on the local
// control plane (executor) and writes the same objects by parallel server-side apply with nothing
// else (floor, as `make bench` measures the write floor), with the cluster's usual bound of 10
// requests in flight: the ratio of the two is what the engine adds to the API server's writes.
func BenchmarkComponentAgainstTheWriteFloor(b *testing.B) {
	cfg := localcluster.Shared(b).Plane(localcluster.RuntimePlane).RESTConfig()
	cfg.QPS, cfg.Burst = -1, 0
	inFlight := make(chan struct{}, 10) // --parallelism's default
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			inFlight <- struct{}{}
			defer func() { <-inFlight }()
			return rt.RoundTrip(req)
		})
	})
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(b, err)
	const ns, count = "write-floor", 100
	namespace := &unstructured.Unstructured{}
	namespace.SetAPIVersion("v1")
	namespace.SetKind("Namespace")
	namespace.SetName(ns)
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	_, err = client.Resource(namespaces).Apply(context.Background(), ns, namespace, metav1.ApplyOptions{FieldManager: "bench"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = client.Resource(namespaces).Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	round := 0
	objectsOfRound := func() []*unstructured.Unstructured {
		round++
		out := make([]*unstructured.Unstructured, count)
		for i := range out {
			out[i] = readinessObject("v1", "ConfigMap", fmt.Sprintf("r%d-config-%03d", round, i), "")
			out[i].SetNamespace(ns)
			out[i].Object["data"] = map[string]any{"round": fmt.Sprint(round)}
		}
		return out
	}
	b.Run("executor", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			const addr = "component.manifests.many"
			component := &plan.Component{Address: addr, Action: plan.Create}
			var desired []*plan.Desired
			for _, u := range objectsOfRound() {
				desired = append(desired, &plan.Desired{Cluster: "runtime", Component: addr, Object: u,
					Resource: observe.Resource{GroupVersionKind: u.GroupVersionKind(), Resource: "configmaps", Namespaced: true}})
				component.Objects = append(component.Objects, &plan.ObjectChange{Cluster: "runtime", APIVersion: "v1", Ref: object.RefOf(u), Action: plan.Create})
			}
			e := &Executor{Clients: map[string]dynamic.Interface{"runtime": client}, Desired: desired}
			b.StartTimer()
			if err := e.Apply(context.Background(), component); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		for b.Loop() {
			b.StopTimer()
			objs := objectsOfRound()
			b.StartTimer()
			var wg sync.WaitGroup
			for _, u := range objs {
				wg.Go(func() {
					if _, err := client.Resource(configMaps).Namespace(ns).Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: "bench"}); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
		}
	})
}
