package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// loadBalancerAddress stands in for the address the seed's ingress gateways get from a cloud
// provider, which the DNSRecords of landscapes/local point at (TEST-NET-1, RFC 5737).
const loadBalancerAddress = "192.0.2.10"

// TestLocalLandscapeCustomResourcesAreAccepted renders landscapes/local without clusters (as
// `gardener graph` does) and dry-runs on the runtime plane every object whose kind a CRD of the
// catalog (components/crds) serves: the extension resources, Etcds, ManagedResources and Istio
// objects of its garden, seed and shoots. Those CRDs are the ones Gardener v1.120.0 applies
// (components/crds checks that they are generated from the pin), so a refusal here is an object
// gardenlet's own CRDs would refuse on a real seed.
func TestLocalLandscapeCustomResourcesAreAccepted(t *testing.T) {
	served := map[schema.GroupKind]bool{}
	for _, name := range crds.Names() {
		crd, err := crds.Get(name)
		require.NoError(t, err)
		served[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = true
	}
	objects := localLandscapeObjects(t, served)

	c := localcluster.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runtime := connect(t, c.Plane(localcluster.RuntimePlane))
	for _, name := range crds.Names() {
		doc, err := crds.YAML(name)
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal(doc, &u.Object))
		require.NoError(t, runtime.apply(ctx, u, false), name)
	}
	namespaces := map[string]bool{}
	for _, o := range objects {
		if ns := o.object.GetNamespace(); ns != "" && !namespaces[ns] {
			namespaces[ns] = true
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("v1")
			u.SetKind("Namespace")
			u.SetName(ns)
			require.NoError(t, runtime.apply(ctx, u, false), "namespace %s", ns)
		}
	}

	kinds := map[string]int{}
	for _, o := range objects {
		kinds[o.object.GetKind()]++
		err := runtime.apply(ctx, o.object, true)
		assert.NoError(t, err, "%s: %s %s/%s", o.file, o.object.GetKind(), o.object.GetNamespace(), o.object.GetName())
	}
	// What the shoots, the seed and the garden of landscapes/local are made of; a kind missing
	// here means the test no longer sees it, not that it is accepted.
	for _, kind := range []string{"Cluster", "Infrastructure", "ControlPlane", "Network", "OperatingSystemConfig", "Worker",
		"DNSRecord", "Etcd", "ManagedResource", "Gateway", "VirtualService", "DestinationRule", "EnvoyFilter"} {
		assert.Positive(t, kinds[kind], "landscapes/local renders no %s", kind)
	}
	t.Logf("dry-ran %d objects of landscapes/local against the catalog's CRDs: %v", len(objects), kinds)
}

// localLandscapeObjects renders landscapes/local without clusters and returns the objects of the
// served kinds, sorted by instance, with the addresses only a cloud provider gives replaced by
// loadBalancerAddress. goldenObject.file names the instance that rendered the object.
func localLandscapeObjects(t *testing.T, served map[schema.GroupKind]bool) []goldenObject {
	t.Helper()
	out, diags := planner.Prepare(planner.Options{Dir: "../../landscapes/local", Schemas: catalog.Schemas(), Renderers: catalog.Renderers()})
	require.False(t, diags.HasErrors(), diags.Error())
	var objects []goldenObject
	for addr, rd := range out.Rendered {
		for _, o := range rd.Objects {
			if !served[o.Object.GroupVersionKind().GroupKind()] {
				continue
			}
			resolved, ok, err := render.ResolveLiveObject(o.Object.Object, fakeLoadBalancer)
			require.NoError(t, err, "%s: %s %s", addr, o.Object.GetKind(), o.Object.GetName())
			require.True(t, ok, "%s: %s %s keeps a value known only after apply", addr, o.Object.GetKind(), o.Object.GetName())
			data, err := json.Marshal(resolved)
			require.NoError(t, err)
			require.NotContains(t, string(data), "${", "%s: %s %s holds a marker", addr, o.Object.GetKind(), o.Object.GetName())
			objects = append(objects, goldenObject{file: string(addr), cluster: o.Cluster, object: &unstructured.Unstructured{Object: resolved}})
		}
	}
	sort.SliceStable(objects, func(i, j int) bool {
		a, b := objects[i], objects[j]
		return fmt.Sprint(a.file, a.object.GetKind(), a.object.GetNamespace(), a.object.GetName()) <
			fmt.Sprint(b.file, b.object.GetKind(), b.object.GetNamespace(), b.object.GetName())
	})
	require.NotEmpty(t, objects)
	for _, o := range objects {
		require.Equal(t, localcluster.RuntimePlane, planeFor(o.cluster), "%s: %s %s is not for the runtime cluster", o.file, o.object.GetKind(), o.object.GetName())
	}
	return objects
}

// shootUID stands in for the uid gardener-apiserver gives a Shoot, which the shoot's namespace
// and extensions Cluster carry.
const shootUID = "00000000-0000-4000-8000-000000000001"

// fakeLoadBalancer answers every live reference to a Shoot with one that has shootUID, and every
// other with a Service whose load balancer has loadBalancerAddress.
func fakeLoadBalancer(ref render.LiveRef) (*unstructured.Unstructured, error) {
	if ref.Resource == "shoots" {
		shoot := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"uid": shootUID}}}
		shoot.SetAPIVersion("core.gardener.cloud/v1beta1")
		shoot.SetKind("Shoot")
		shoot.SetNamespace(ref.Namespace)
		shoot.SetName(ref.Name)
		shoot.SetUID(shootUID)
		return shoot, nil
	}
	svc := &unstructured.Unstructured{Object: map[string]any{}}
	svc.SetAPIVersion("v1")
	svc.SetKind("Service")
	svc.SetNamespace(ref.Namespace)
	svc.SetName(ref.Name)
	if err := unstructured.SetNestedSlice(svc.Object, []any{map[string]any{"ip": loadBalancerAddress}}, "status", "loadBalancer", "ingress"); err != nil {
		return nil, err
	}
	return svc, nil
}
