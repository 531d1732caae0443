package shoot

import (
	"slices"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Each part's own dependencies name what it needs to be written at all: its namespace, its
// Secrets, the objects it reads. gardenlet's reconcile flow waits for more: a task waits for the
// readiness of tasks it does not read from, so that a later component finds the cluster in the
// state it expects (runReconcileShootFlow in pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go,
// gardener/gardener v1.120.0). flowOrder adds those waits between the parts that model its
// tasks, and the deletion order of runDeleteShootFlow (reconciler_delete.go) where it is not the
// reverse of the reconcile order. docs/fidelity/shoot-flow-order.md maps every task to its part.

// shootClients are the parts behind gardenlet's "Initializing connection to Shoot", which waits
// for the kube-apiserver (rolled out again with the node-agent-authorizer once
// gardener-resource-manager is ready), the internal DNS record and the Gardener access Secrets
// (after gardener-resource-manager).
var shootClients = []string{"kube_apiserver", "gardener_resource_manager", "dns_record_internal"}

// flowWaits are the waits of gardenlet's reconcile flow each part gets beyond its own
// dependencies, keyed by part: the gardenlet task that deploys the part waits for the tasks of
// these parts. A part or dependency the shoot does not render (workerless, without DNS, without
// Extensions of a step) is left out.
var flowWaits = map[string][]string{
	// "Deploying internal/external domain DNS record": the kube-apiserver Service's load
	// balancer, which with SNI is the seed's gateway's (the records read its address themselves).
	"dns_record_internal": {"kube_apiserver_service"},
	"dns_record_external": {"kube_apiserver_service"},
	// "Deploying vpn-seed-server": after the kube-apiserver with the node-agent-authorizer,
	// which waits for gardener-resource-manager.
	"vpn_seed_server": {"kube_apiserver", "gardener_resource_manager"},
	// "Deploying Kubernetes controller manager": the cloud provider Secret, and the
	// kube-apiserver with the node-agent-authorizer.
	"kube_controller_manager": {"cloudprovider", "gardener_resource_manager"},
	// "Deploying Kubernetes scheduler": gardener-resource-manager ready.
	"kube_scheduler": {"gardener_resource_manager"},
	// "Deploying shoot control plane components" (the ControlPlane): gardener-resource-manager
	// ready.
	"control_plane": {"gardener_resource_manager"},
	// "Deploying extension resources before kube-apiserver": the cloud provider Secret and the
	// Infrastructure ready.
	"extensions_before_kube_apiserver":                      {"cloudprovider", "infrastructure"},
	"extensions_before_kube_apiserver" + deletedAfterSuffix: {"cloudprovider", "infrastructure"},
	// "Deploying extension resources after kube-apiserver": the connection to the shoot.
	"extensions_after_kube_apiserver":                      shootClients,
	"extensions_after_kube_apiserver" + deletedAfterSuffix: shootClients,
	// "Deploying operating system specific configuration for shoot workers": the
	// Infrastructure, the ControlPlane and the Extensions after the kube-apiserver ready.
	"operating_system_configs": {"infrastructure", "control_plane", "extensions_after_kube_apiserver",
		"extensions_after_kube_apiserver" + deletedAfterSuffix},
	// "Deploying shoot network plugin": gardener-resource-manager and the
	// OperatingSystemConfigs ready, kube-scheduler deployed.
	"network": {"gardener_resource_manager", "operating_system_configs", "kube_scheduler"},
	// "Deploying machine-controller-manager": the cloud provider Secret, the Infrastructure,
	// the connection to the shoot, the OperatingSystemConfigs and the Network ready, and
	// kube-controller-manager (through "Creating new ServiceAccount secrets").
	"machine_controller_manager": append([]string{"cloudprovider", "infrastructure", "operating_system_configs", "network",
		"kube_controller_manager"}, shootClients...),
	// "Deploying container runtime resources": the connection to the shoot.
	"container_runtimes": shootClients,
	// The system components' tasks (CoreDNS, metrics-server, vpn-shoot, kube-proxy, ...): the
	// connection to the shoot, the OperatingSystemConfigs ready, kube-scheduler deployed;
	// vpn-shoot after vpn-seed-server.
	"system_components": append([]string{"operating_system_configs", "kube_scheduler", "vpn_seed_server"}, shootClients...),
	// "Deploying apiserver-proxy": the connection to the shoot, kube-scheduler deployed.
	apiServerProxyPart: append([]string{"kube_scheduler"}, shootClients...),
}

// flowOrder adds gardenlet's waits (flowWaits) and its deletion order.
func (b *builder) flowOrder() error {
	for _, p := range b.parts {
		for _, d := range flowWaits[p.Name] {
			if b.has(d) && !slices.Contains(p.DependsOn, d) {
				b.dependOn(p.Name, d)
			}
		}
	}
	// "Reconcile node-local-dns system component" waits for the Network ready as well.
	if s := b.v.SystemComponents; s != nil && s.NodeLocalDNSEnabled && b.has("system_components") && b.has("network") {
		b.dependOn("system_components", "network")
	}
	b.deletionOrder()
	return nil
}

// deletedBefore are the pairs of parts gardenlet's delete flow deletes in an order the reverse of
// the reconcile order does not give: the first of each before the second.
var deletedBefore = [][2]string{
	// "Destroying gardener-resource-manager" waits until the kube-apiserver is deleted: the
	// resource manager keeps removing the finalizers of the ManagedResources that the
	// ControlPlane and the Extensions delete before the kube-apiserver.
	{"kube_apiserver", "gardener_resource_manager"},
	// "Destroying external domain DNS record" waits until the kube-apiserver is deleted,
	// "Destroying internal domain DNS record" until everything but the etcds and the namespace is:
	// the records keep the API server's address for as long as it runs.
	{"kube_apiserver", "dns_record_internal"},
	{"kube_apiserver", "dns_record_external"},
	// "Deleting managed resources" waits until the Worker's machines are gone: the system
	// components (and the kube-apiserver's RBAC for the kubelets) stay while the nodes drain.
	{"worker", "system_components"},
	{"worker", apiServerProxyPart},
	{"worker", "kube_apiserver_shoot_resources"},
}

// deletionOrder makes deleting the shoot follow deletedBefore.
func (b *builder) deletionOrder() {
	for _, pair := range deletedBefore {
		first, then := b.part(pair[0]), b.part(pair[1])
		if first == nil || then == nil {
			continue
		}
		for _, p := range []*render.Component{first, then} {
			if p.DeletionDependsOn == nil {
				p.DeletionDependsOn = slices.Clone(p.DependsOn)
			}
		}
		then.DeletionDependsOn = slices.DeleteFunc(then.DeletionDependsOn, func(d string) bool { return d == pair[0] })
		first.DeletionDependsOn = append(first.DeletionDependsOn, pair[1])
	}
}
