// Package catalog wires the component packages' render functions into one registry by
// component type, for the CLI and for tests that plan landscapes as the CLI does. The engine
// never imports component packages; whoever runs it passes this registry in.
package catalog

import (
	"github.com/declarative-gardener/gardener/components/cloudprofile"
	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
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
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/project"
	"github.com/declarative-gardener/gardener/components/quota"
	"github.com/declarative-gardener/gardener/components/reserveexcesscapacity"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/secretbinding"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/components/vpnseedserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Renderers returns the render function of every component type and composite block of the
// catalog.
func Renderers() render.Registry {
	return render.Registry{
		"garden":                        garden.Render,
		"seed":                          seed.Render,
		"shoot":                         shoot.Render,
		"helm_release":                  helmrelease.Render,
		"manifests":                     manifests.Render,
		"priority_classes":              priorityclasses.Render,
		"namespace":                     namespace.Render,
		"gardener_resource_manager":     resourcemanager.Render,
		"vpa":                           vpa.Render,
		"etcd_druid":                    etcddruid.Render,
		"istio":                         istio.Render,
		"nginx_ingress":                 nginxingress.Render,
		"etcd":                          etcd.Render,
		"kube_apiserver":                kubeapiserver.Render,
		"kube_controller_manager":       kubecontrollermanager.Render,
		"gardener_apiserver":            gardenerapiserver.Render,
		"gardener_admission_controller": gardeneradmissioncontroller.Render,
		"gardener_controller_manager":   gardenercontrollermanager.Render,
		"gardener_scheduler":            gardenerscheduler.Render,
		"project":                       project.Render,
		"cloud_profile":                 cloudprofile.Render,
		"secret_binding":                secretbinding.Render,
		"credentials_binding":           credentialsbinding.Render,
		"quota":                         quota.Render,
		"controller_registration":       controllerregistration.Render,
		"controller_deployment":         controllerdeployment.Render,
		"exposure_class":                exposureclass.Render,
		"observability":                 observability.Render,
		"extension":                     extension.Render,
		"managed_resource":              managedresource.Render,
		"gardenlet":                     gardenlet.Render,
		"dependency_watchdog":           dependencywatchdog.Render,
		"reserve_excess_capacity":       reserveexcesscapacity.Render,
		"kube_scheduler":                kubescheduler.Render,
		"vpn_seed_server":               vpnseedserver.Render,
		"machine_controller_manager":    machinecontrollermanager.Render,
		"cluster_autoscaler":            clusterautoscaler.Render,
		"landscape_daemon":              landscapedaemon.Render,
	}
}
