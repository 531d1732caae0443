package shoot

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/shootsystem"
	"github.com/declarative-gardener/gardener/engine/render"
)

// apiServerProxyPart is the part of the apiserver-proxy's ManagedResource.
const apiServerProxyPart = "apiserver_proxy"

// apiServerServiceRef is the shoot kube-apiserver's Service in the seed, whose cluster IP the
// API server advertises and the apiserver-proxy listens on in the shoot (mapped into
// render.ReservedShootAPIServerRange).
func (b *builder) apiServerServiceRef() render.LiveRef {
	return render.LiveRef{
		Cluster: b.seed.Cluster, Version: "v1", Resource: "services", Namespace: b.ns, Name: kubeapiserver.ServiceName(""),
		Paths: []string{"spec.clusterIP"},
	}
}

// apiServerProxy: the apiserver-proxy on the shoot's nodes in a ManagedResource of its own
// ("Deploying apiserver-proxy" in pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go
// at gardener/gardener v1.120.0, for shoots with workers). Its objects carry the API server's
// address, which exists only once the kube-apiserver Service has its cluster IP: with the
// Service there the part is rendered now, and during the apply that creates the Service
// otherwise (render.Await), so that the ConfigMap and the ManagedResource Secret are named after
// the content they will really have.
func (b *builder) apiServerProxy(sv shootsystem.Values) error {
	if !b.has("system_components") {
		return nil
	}
	deps := []string{"gardener_resource_manager", "kube_apiserver_service", "kube_apiserver"}
	objects := func(clusterIP string) ([]render.Object, error) {
		v := sv
		v.APIServerProxy.AdvertiseAddress = render.ShootAPIServerAddress(clusterIP)
		objs, err := shootsystem.APIServerProxyManagedResource(v, b.seed.Cluster, b.ns)
		if err != nil {
			return nil, fmt.Errorf("apiserver-proxy: %w", err)
		}
		return objs, nil
	}
	ref := b.apiServerServiceRef()
	live, err := b.in.Observed(ref)
	if err != nil {
		return err
	}
	if ip, ok := render.FieldValue(live, ref.Paths); ok {
		objs, err := objects(ip)
		if err != nil {
			return err
		}
		b.add(apiServerProxyPart, "managed_resource", objs, deps...)
		return nil
	}
	// Any address gives the kinds and namespaces the graph orders the part by.
	placeholder, err := objects("10.0.0.1")
	if err != nil {
		return err
	}
	b.parts = append(b.parts, render.Component{Name: apiServerProxyPart, Type: "managed_resource", DependsOn: deps, Await: &render.Await{
		For:    fmt.Sprintf("the cluster IP of Service %s/%s, which the apiserver-proxy listens on in the shoot", b.ns, ref.Name),
		Shapes: shapes(placeholder),
		Render: func(in render.Input) (*render.Awaited, error) {
			live, err := in.Observed(ref)
			if err != nil {
				return nil, err
			}
			ip, ok := render.FieldValue(live, ref.Paths)
			if !ok {
				return nil, nil
			}
			objs, err := objects(ip)
			if err != nil {
				return nil, err
			}
			return &render.Awaited{Objects: objs}, nil
		},
	}})
	return nil
}
