package observe_test

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/observe"
)

// fakeCluster serves a fixed set of resources and objects and records the reads made.
type fakeCluster struct {
	resources []observe.Resource
	objects   []*unstructured.Unstructured
	// failures by "list <resource>" or "get <resource> <namespace>/<name>" or "resources".
	failures map[string]error

	mu    sync.Mutex
	lists []string // "<resource> <namespace> <selector>"
	gets  []string // "<resource> <namespace>/<name>"
}

func (f *fakeCluster) ServerVersion(context.Context) (string, error) { return "v1.37.1", nil }

func (f *fakeCluster) Resources(context.Context) ([]observe.Resource, error) {
	if err := f.failures["resources"]; err != nil {
		return nil, err
	}
	return f.resources, nil
}

func (f *fakeCluster) resourceOf(gvr schema.GroupVersionResource) observe.Resource {
	for _, r := range f.resources {
		if r.GVR() == gvr {
			return r
		}
	}
	panic(fmt.Sprintf("fake: unknown resource %v", gvr))
}

func (f *fakeCluster) List(_ context.Context, gvr schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	f.mu.Lock()
	f.lists = append(f.lists, gvr.Resource+" "+namespace+" "+selector)
	f.mu.Unlock()
	if err := f.failures["list "+gvr.Resource]; err != nil {
		return nil, err
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	kind := f.resourceOf(gvr).GroupVersionKind
	var out []unstructured.Unstructured
	for _, obj := range f.objects {
		if obj.GroupVersionKind().GroupKind() != kind.GroupKind() {
			continue
		}
		if namespace != "" && obj.GetNamespace() != namespace {
			continue
		}
		if sel.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, *obj.DeepCopy())
		}
	}
	return out, nil
}

func (f *fakeCluster) Get(_ context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	key := gvr.Resource + " " + namespace + "/" + name
	f.mu.Lock()
	f.gets = append(f.gets, key)
	f.mu.Unlock()
	if err := f.failures["get "+key]; err != nil {
		return nil, err
	}
	kind := f.resourceOf(gvr).GroupVersionKind
	for _, obj := range f.objects {
		if obj.GroupVersionKind().GroupKind() == kind.GroupKind() && obj.GetNamespace() == namespace && obj.GetName() == name {
			return obj.DeepCopy(), nil
		}
	}
	return nil, nil
}

func (f *fakeCluster) OpenAPIV3Index(context.Context) (map[string]string, error) {
	return map[string]string{"api/v1": "/openapi/v3/api/v1?hash=ABC"}, nil
}

func (f *fakeCluster) OpenAPIV3(_ context.Context, path string) ([]byte, error) {
	if path != "api/v1" {
		return nil, fmt.Errorf("no document %q", path)
	}
	return []byte(`{"openapi":"3.0.0","info":{"title":"Kubernetes","version":"v1.37.1"}}`), nil
}

func (f *fakeCluster) calls() (lists, gets []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	lists, gets = append([]string(nil), f.lists...), append([]string(nil), f.gets...)
	sort.Strings(lists)
	sort.Strings(gets)
	return lists, gets
}

// refreshingFake serves more resources after RefreshDiscovery, like a stale discovery cache.
type refreshingFake struct {
	*fakeCluster
	afterRefresh []observe.Resource
	refreshes    int
}

func (f *refreshingFake) RefreshDiscovery(context.Context) error {
	f.refreshes++
	f.resources = f.afterRefresh
	return nil
}

var (
	configMaps = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Namespaced: true, Verbs: []string{"get", "list", "patch"}}
	namespaces = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Resource: "namespaces", Verbs: []string{"get", "list", "patch"}}
	deploys    = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: "deployments", Namespaced: true, Verbs: []string{"get", "list", "patch"}}
	etcds      = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "druid.gardener.cloud", Version: "v1alpha1", Kind: "Etcd"}, Resource: "etcds", Namespaced: true, Verbs: []string{"get", "list", "patch"}}
	reviews    = observe.Resource{GroupVersionKind: schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}, Resource: "tokenreviews", Verbs: []string{"create"}}
)

const selector = "declarative-gardener.io/landscape=local"

// obj builds an object; labelled objects carry the inventory label.
func obj(gvk schema.GroupVersionKind, namespace, name string, labelled bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	if labelled {
		u.SetLabels(map[string]string{"declarative-gardener.io/landscape": "local"})
	}
	return u
}
