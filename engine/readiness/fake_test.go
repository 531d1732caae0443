package readiness

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	jobsGVR        = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
)

// fakeAPI is a scripted API server for Wait: LISTs answer from objects (or listErr), every WATCH
// is handed to the test through watches so it can push events, and the number of open watches is
// tracked.
type fakeAPI struct {
	client  *dynamicfake.FakeDynamicClient
	watches chan *fakeWatch

	mu       sync.Mutex
	objects  []*unstructured.Unstructured
	listRV   string
	listErr  error
	lists    []clienttesting.ListActionImpl
	open     int
	maxOpen  int
	watchLog []clienttesting.WatchActionImpl
}

// fakeWatch is one WATCH call: its options and the watcher the test drives.
type fakeWatch struct {
	*watch.RaceFreeFakeWatcher
	Namespace string
	Opts      metav1.ListOptions
	api       *fakeAPI
	once      sync.Once
}

// Stop closes the result channel (as a server closing the watch does) and counts the watch as
// closed.
func (w *fakeWatch) Stop() {
	w.once.Do(func() {
		w.api.mu.Lock()
		w.api.open--
		w.api.mu.Unlock()
	})
	w.RaceFreeFakeWatcher.Stop()
}

func newFakeAPI(t *testing.T, objects ...*unstructured.Unstructured) *fakeAPI {
	t.Helper()
	api := &fakeAPI{objects: objects, listRV: "10", watches: make(chan *fakeWatch, 100)}
	api.client = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		deploymentsGVR: "DeploymentList",
		jobsGVR:        "JobList",
	})
	api.client.PrependReactor("list", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		la := action.(clienttesting.ListActionImpl)
		api.mu.Lock()
		defer api.mu.Unlock()
		api.lists = append(api.lists, la)
		if api.listErr != nil {
			return true, nil, api.listErr
		}
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}}
		list.SetResourceVersion(api.listRV)
		for _, o := range api.objects {
			if o.GetNamespace() == la.Namespace && o.GroupVersionKind().Group == la.Resource.Group {
				list.Items = append(list.Items, *o.DeepCopy())
			}
		}
		return true, list, nil
	})
	api.client.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		wa := action.(clienttesting.WatchActionImpl)
		w := &fakeWatch{RaceFreeFakeWatcher: watch.NewRaceFreeFake(), Namespace: wa.Namespace, Opts: wa.ListOptions, api: api}
		api.mu.Lock()
		api.open++
		api.maxOpen = max(api.maxOpen, api.open)
		api.watchLog = append(api.watchLog, wa)
		api.mu.Unlock()
		api.watches <- w
		return true, w, nil
	})
	return api
}

// nextWatch returns the next WATCH Wait opened, failing the test after a few seconds.
func (a *fakeAPI) nextWatch(t *testing.T) *fakeWatch {
	t.Helper()
	select {
	case w := <-a.watches:
		return w
	case <-time.After(5 * time.Second):
		t.Fatal("no watch was opened")
		return nil
	}
}

func (a *fakeAPI) listCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.lists)
}

func (a *fakeAPI) maxOpenWatches() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.maxOpen
}

// waitResult runs Wait in the background and returns a channel with its result.
func waitResult(api *fakeAPI, ctxTimeout time.Duration, targets []Target, opts WaitOptions) <-chan error {
	done := make(chan error, 1)
	go func() {
		opts.Timeout = ctxTimeout
		done <- Wait(context.Background(), api.client, targets, opts)
	}()
	return done
}

// result waits for Wait's result.
func result(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		require.FailNow(t, "Wait did not return")
		return nil
	}
}
