package diff

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	cgopenapi "k8s.io/client-go/openapi"
	"k8s.io/client-go/restmapper"

	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }

// discoveryFetcher reads OpenAPI v3 through client-go's discovery client: a stand-in for the
// engine's live observe.Cluster, which this package must not depend on.
type discoveryFetcher struct {
	client cgopenapi.Client

	mu    sync.Mutex
	paths map[string]cgopenapi.GroupVersion
}

func (f *discoveryFetcher) OpenAPIV3Index(context.Context) (map[string]string, error) {
	paths, err := f.client.Paths()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.paths = paths
	f.mu.Unlock()
	out := make(map[string]string, len(paths))
	for p, gv := range paths {
		out[p] = gv.ServerRelativeURL()
	}
	return out, nil
}

func (f *discoveryFetcher) OpenAPIV3(_ context.Context, path string) ([]byte, error) {
	f.mu.Lock()
	gv, ok := f.paths[path]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("openapi path %s not served", path)
	}
	return gv.Schema("application/json")
}

// clusterEnv is the shared control plane with the clients the corpus needs.
type clusterEnv struct {
	cs     kubernetes.Interface
	dyn    dynamic.Interface
	mapper meta.RESTMapper
	differ *Differ
	// slowDiffer never takes the no-op fast path.
	slowDiffer *Differ
	fetcher    *discoveryFetcher
}

var (
	envOnce sync.Once
	envVal  *clusterEnv
	envErr  error
)

// sharedEnv starts (once) the package's control plane, installs the CRDs the corpus uses and
// waits until the server publishes their OpenAPI.
func sharedEnv(t *testing.T) *clusterEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := localcluster.Shared(t)
	envOnce.Do(func() { envVal, envErr = newClusterEnv(c) })
	require.NoError(t, envErr)
	return envVal
}

func newClusterEnv(c *localcluster.Cluster) (*clusterEnv, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	etcd, err := localcluster.SeedCRD("etcds.druid.gardener.cloud")
	if err != nil {
		return nil, err
	}
	if err := localcluster.ApplyCRDs(ctx, cfg, [][]byte{etcd, []byte(widgetCRD)}); err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	fetcher := &discoveryFetcher{client: dc.OpenAPIV3()}
	want := []string{"apis/druid.gardener.cloud/v1alpha1", "apis/difftest.gardener.cloud/v1"}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		idx, err := fetcher.OpenAPIV3Index(ctx)
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		for _, p := range want {
			if _, ok := idx[p]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("crd openapi not published: %w", err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		return nil, err
	}
	schemas := openapi.New(fetcher, "")
	slow := New(schemas, "gardener")
	slow.slowOnly = true
	return &clusterEnv{
		cs:         cs,
		dyn:        dyn,
		mapper:     restmapper.NewDiscoveryRESTMapper(groups),
		differ:     New(schemas, "gardener"),
		slowDiffer: slow,
		fetcher:    fetcher,
	}, nil
}

func (e *clusterEnv) namespace(t *testing.T, name string) {
	t.Helper()
	_, err := e.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// widgetCRD is a test kind with a transition rule (self == oldSelf), a keyed list and a field
// preserving unknown fields.
const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.difftest.gardener.cloud
spec:
  group: difftest.gardener.cloud
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              region:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: region is immutable
              size:
                type: integer
              capacity:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
              tags:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    value: {type: string}
              config:
                type: object
                x-kubernetes-preserve-unknown-fields: true
`
