package gardenerapiserver

import (
	"fmt"
	"net"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Type is the gardener_apiserver component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one gardener_apiserver instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	resources, err := EncryptedResources(v.EncryptedResources)
	if err != nil {
		return nil, err
	}
	list := make([]cty.Value, len(resources))
	for i, r := range resources {
		list[i] = cty.StringVal(r)
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{
		"service_name":        cty.StringVal(Name),
		"encrypted_resources": cty.ListVal(list),
	}}, nil
}

// resolved are the API server's values with their Common resolved and the defaults that depend on
// other values applied.
type resolved gardenercontrolplane.Component[Values]

// complete checks the API server's own values and applies the defaults that depend on its
// namespace.
func complete(v *Values) error {
	if v.ClusterIdentity == "" {
		return fmt.Errorf("cluster identity is not set")
	}
	if v.EtcdEndpoint == "" {
		v.EtcdEndpoint = "https://virtual-garden-etcd-main-client." + v.Namespace + ".svc:2379"
	}
	defaults := []struct {
		field *string
		value string
	}{
		{&v.RuntimeServiceAddress, Name + "." + v.Namespace + ".svc"},
	}
	for _, d := range defaults {
		if *d.field == "" {
			*d.field = d.value
		}
	}
	if v.DefaultWatchCacheSize != nil && *v.DefaultWatchCacheSize < 0 {
		return fmt.Errorf("default watch cache size %d is negative", *v.DefaultWatchCacheSize)
	}
	if _, err := EncryptedResources(v.EncryptedResources); err != nil {
		return err
	}
	return nil
}

// runtimeServiceIP is the address as an IP, or nil for a DNS name.
func (r resolved) runtimeServiceIP() net.IP { return net.ParseIP(r.Values.RuntimeServiceAddress) }

// Objects renders the runtime cluster objects followed by the virtual garden objects.
func Objects(v Values) ([]render.Object, error) {
	c, err := gardenercontrolplane.ResolveComponent(v, Name, complete)
	if err != nil {
		return nil, err
	}
	r := resolved(c)
	deployment, err := r.deployment()
	if err != nil {
		return nil, err
	}
	runtimeObjs, err := gardenercontrolplane.Place(r.Cluster.Name,
		r.Access().Secret(),
		deployment,
		r.Service(servicePort()),
		r.autoscaler(),
		r.PodDisruptionBudget(),
	)
	if err != nil {
		return nil, fmt.Errorf("gardener-apiserver: %w", err)
	}
	virtual, err := r.virtualObjects()
	if err != nil {
		return nil, fmt.Errorf("gardener-apiserver: %w", err)
	}
	return append(runtimeObjs, virtual...), nil
}

func (r resolved) virtualObjects() ([]render.Object, error) {
	typed := []runtime.Object{}
	typed = append(typed, r.rbac()...)
	if r.Values.RegisterAPIServices {
		typed = append(typed, r.virtualService()...)
	}
	objs, err := gardenercontrolplane.Place(r.VirtualCluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	if r.Values.RegisterAPIServices {
		objs = append(objs, kube.On(r.VirtualCluster.Name, "", r.apiServices()...)...)
	}
	return objs, nil
}
