// Package catalog lists the component types and composite blocks, each defined once in its own
// package, and derives from that one list the schema registry the loader decodes landscapes with
// and the render registry the engine renders them with, for the CLI and for tests that plan
// landscapes as the CLI does. The engine never imports component packages; whoever runs it
// passes these registries in.
package catalog

import (
	"github.com/declarative-gardener/gardener/components/apishoots"
	"github.com/declarative-gardener/gardener/components/cloudprofile"
	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/credentialsbinding"
	"github.com/declarative-gardener/gardener/components/dependencywatchdog"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/exposureclass"
	"github.com/declarative-gardener/gardener/components/extension"
	"github.com/declarative-gardener/gardener/components/garden"
	"github.com/declarative-gardener/gardener/components/gardeneradmissioncontroller"
	"github.com/declarative-gardener/gardener/components/gardenerapiserver"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenerscheduler"
	"github.com/declarative-gardener/gardener/components/gardenlet"
	"github.com/declarative-gardener/gardener/components/generatedsecret"
	"github.com/declarative-gardener/gardener/components/helmrelease"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/components/kubescheduler"
	"github.com/declarative-gardener/gardener/components/landscapedaemon"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/project"
	"github.com/declarative-gardener/gardener/components/quota"
	"github.com/declarative-gardener/gardener/components/reserveexcesscapacity"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/secretbinding"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/components/vpnseedserver"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Types lists every component type and composite block of the catalog, each defined once in its
// own package (its schema in schema.go, its render function beside it).
func Types() []component.Type {
	return []component.Type{
		garden.Type,
		apishoots.Type,
		shoot.Type,
		helmrelease.Type,
		manifests.Type,
		generatedsecret.Type,
		priorityclasses.Type,
		namespace.Type,
		networkpolicies.Type,
		resourcemanager.Type,
		vpa.Type,
		etcddruid.Type,
		istio.Type,
		nginxingress.Type,
		etcd.Type,
		kubeapiserver.Type,
		kubecontrollermanager.Type,
		gardenerapiserver.Type,
		gardeneradmissioncontroller.Type,
		gardenercontrollermanager.Type,
		gardenerscheduler.Type,
		project.Type,
		cloudprofile.Type,
		secretbinding.Type,
		credentialsbinding.Type,
		quota.Type,
		controllerregistration.Type,
		controllerdeployment.Type,
		exposureclass.Type,
		observability.Type,
		extension.Type,
		managedresource.Type,
		gardenlet.Type,
		dependencywatchdog.Type,
		reserveexcesscapacity.Type,
		kubescheduler.Type,
		vpnseedserver.Type,
		machinecontrollermanager.Type,
		clusterautoscaler.Type,
		landscapedaemon.Type,
	}
}

// Renderers returns the render function of every component type and composite block of the
// catalog that has one; the engine renders generated secrets itself.
func Renderers() render.Registry {
	r := render.Registry{}
	for _, t := range Types() {
		if fn := t.Renderer(); fn != nil {
			r[t.Schema().Type] = fn
		}
	}
	return r
}

// Schemas returns the schema registry of every component type and composite block of the
// catalog, built afresh on every call so that no caller can alter another's copy. It panics only
// if a schema is invalid, which the catalog's tests rule out; a panic would be a bug in a
// component package, not a user error.
func Schemas() *schema.Registry {
	types := Types()
	schemas := make([]*schema.Schema, len(types))
	for i, t := range types {
		schemas[i] = t.Schema()
	}
	r, err := schema.NewRegistry(schemas...)
	if err != nil {
		panic("catalog: invalid built-in schema: " + err.Error())
	}
	return r
}
