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
	assert.Len(t, list.Items, count+1, "every ConfigMap, and the API server's kube-root-ca.crt")
	assert.Greater(t, log.maxInFlight, 1, "the ConfigMaps were written at once")
	for i := range count {
		name := fmt.Sprintf("config-%02d", i)
		assert.False(t, log.started[name].Before(log.ended[ns]), "%s was written after its Namespace", name)
	}
}
