package seed

import (
	"time"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Seed condition types gardenlet reports (pkg/apis/core/v1beta1/types_seed.go at Gardener
// v1.120.0); ExtensionsReady and BackupBucketsReady are gardener-controller-manager's.
const (
	ConditionGardenletReady              = "GardenletReady"
	ConditionSeedSystemComponentsHealthy = "SeedSystemComponentsHealthy"
)

// LeaseNamespace is where gardenlet keeps its seed's heartbeat Lease (GardenerSeedLeaseNamespace
// in pkg/apis/core/v1beta1/types.go at Gardener v1.120.0).
const LeaseNamespace = "gardener-system-seed-lease"

// leaseDuration is the Lease's leaseDurationSeconds and how often gardenlet renews it
// (LeaseResyncSeconds, SetDefaults_SeedControllerConfiguration in
// pkg/gardenlet/apis/config/v1alpha1/defaults.go).
const leaseDuration = 2 * time.Second

// seedOperation is how gardenlet words a Seed's last operation (updateStatusOperationStart and
// the flow names in pkg/gardenlet/controller/seed/seed at Gardener v1.120.0).
var seedOperation = &render.Operation{
	Subject: "Seed cluster",
	Flows:   map[string]string{"Reconcile": "Seed reconciliation", "Delete": "Seed deletion"},
}

// systemComponentParts are the parts whose health gardenlet's seed care controller reports in
// SeedSystemComponentsHealthy (the seed system components' ManagedResources, checkSystemComponents
// in pkg/gardenlet/controller/seed/care/health.go).
var systemComponentParts = []string{"gardener_resource_manager", "etcd_druid", "vpa", "istio", "nginx_ingress",
	"dependency_watchdog", "reserve_excess_capacity", "observability"}

// report is what the engine reports about the Seed as gardenlet does: its heartbeat Lease in
// gardener-system-seed-lease and GardenletReady (what gardener-controller-manager's seed
// lifecycle controller and gardener-scheduler check), the seed system components' health, and
// the operation of every apply that changes the seed.
func report(name string, v Values, parts []render.Component) render.Report {
	have := map[string]bool{}
	for _, p := range parts {
		have[p.Name] = true
	}
	var system []string
	for _, p := range systemComponentParts {
		if have[p] {
			system = append(system, p)
		}
	}
	health := render.ReportedCondition{Type: ConditionSeedSystemComponentsHealthy, Parts: system, Reason: "SystemComponentsRunning",
		Message: "All system components are healthy.", FalseReason: "SystemComponentsUnhealthy"}
	if len(system) == 0 { // a seed in the garden's runtime cluster may leave every one to the garden
		health.Status = "True"
	}
	return render.Report{
		Cluster: v.Garden.VirtualCluster, APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: name,
		GardenerVersion: images.GardenerVersion,
		Operation:       seedOperation,
		Conditions: []render.ReportedCondition{
			{Type: ConditionGardenletReady, Status: "True", Reason: "GardenletReady", Message: "Gardenlet is posting ready status."},
			health,
		},
		Heartbeat: &render.Heartbeat{Cluster: v.Garden.VirtualCluster, Namespace: LeaseNamespace, Name: name, Duration: leaseDuration},
	}
}
