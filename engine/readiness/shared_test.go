package readiness_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/readiness"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// requestLog counts a client's LIST and WATCH requests.
type requestLog struct {
	mu             sync.Mutex
	lists, watches int
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet {
			l.mu.Lock()
			if req.URL.Query().Get("watch") == "true" {
				l.watches++
			} else {
				l.lists++
			}
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (l *requestLog) counts() (lists, watches int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lists, l.watches
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// Components waiting at once for Deployments in different namespaces share one LIST and one
// WATCH of Deployments on the local control plane, and each returns once its own are ready; a
// wait that comes later, for objects ready by then, is answered from what the watch holds.
func TestIntegrationSharedWatchesServeEveryWait(t *testing.T) {
	first, second := newEnv(t), newEnv(t)
	first.create(t, deploymentsGVR, deploymentYAML("etcd-druid", 1, ""))
	second.create(t, deploymentsGVR, deploymentYAML("gardener-resource-manager", 1, ""))
	second.create(t, deploymentsGVR, deploymentYAML("stuck", 1, "nodeSelector: {readiness.test/no-such-node: \"true\"}"))

	log := &requestLog{}
	cfg := localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
	cfg.Wrap(log.wrap)
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	watches := readiness.NewWatches(client)
	defer watches.Close()

	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Go(func() {
		errs[0] = watches.Wait(first.ctx, []readiness.Target{first.target(deploymentsGVR, "etcd-druid")}, readiness.WaitOptions{Timeout: time.Minute})
	})
	wg.Go(func() {
		errs[1] = watches.Wait(second.ctx, []readiness.Target{second.target(deploymentsGVR, "gardener-resource-manager")}, readiness.WaitOptions{Timeout: time.Minute})
	})
	wg.Go(func() {
		errs[2] = watches.Wait(second.ctx, []readiness.Target{second.target(deploymentsGVR, "stuck")}, readiness.WaitOptions{Timeout: 8 * time.Second})
	})
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	var nre *readiness.NotReadyError
	require.ErrorAs(t, errs[2], &nre, "the Deployment no node can run stays not ready")
	assert.ErrorIs(t, errs[2], context.DeadlineExceeded)
	require.Len(t, nre.NotReady, 1)
	assert.Equal(t, "Deployment", nre.NotReady[0].Kind)

	lists, watchCount := log.counts()
	assert.Equal(t, 1, lists, "one LIST of Deployments for every wait")
	assert.GreaterOrEqual(t, watchCount, 1)
	assert.LessOrEqual(t, watchCount, 2, "one WATCH, resumed at most once if the server closed it")

	require.NoError(t, watches.Wait(first.ctx, []readiness.Target{first.target(deploymentsGVR, "etcd-druid")}, readiness.WaitOptions{Timeout: time.Second}))
	lists, _ = log.counts()
	assert.Equal(t, 1, lists, "a later wait reads what the watch holds")
}
