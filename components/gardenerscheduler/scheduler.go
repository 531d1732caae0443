// Package gardenerscheduler renders the gardener_scheduler component: the controller that assigns
// a seed to every new shoot through the shoots/binding subresource (Gardener's "Gardener Scheduler"
// docs/concepts/scheduler.md). gardener-operator runs it in the garden runtime cluster; it needs
// gardener-apiserver serving (Gardener's "Topology Aware Routing"
// docs/operations/topology_aware_routing.md).
//
// In the runtime cluster it renders the Deployment (1 replica, 2 with high availability), the
// ConfigMap with its SchedulerConfiguration, a metrics Service, a PodDisruptionBudget and the
// token-requestor Secret of its identity; in the virtual garden its ClusterRole and binding.
package gardenerscheduler

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Name is the name of the Deployment, the Service and the virtual garden ServiceAccount.
const Name = "gardener-scheduler"

// Strategies are the candidate determination strategies; SameRegion is the default (Gardener's
// docs/concepts/scheduler.md).
var Strategies = []string{"SameRegion", "MinimalDistance"}

// Ports of the health probe and metrics servers: Gardener's documentation names none, these are
// Gardener's defaults.
const (
	HealthProbePort = 10251
	MetricsPort     = 19251
)

// Values are the component's typed inputs; the zero value of every optional field means the
// documented default.
type Values struct {
	gardenercontrolplane.Common

	// Strategy is how seed candidates are chosen: SameRegion or MinimalDistance,
	// which reads region distances from ConfigMaps labelled
	// scheduling.gardener.cloud/purpose=region-config (Gardener's docs/concepts/scheduler.md).
	Strategy string `json:"strategy"`
}

// Type is the gardener_scheduler component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the runtime cluster objects followed by the virtual garden objects.
func Objects(v Values) ([]render.Object, error) {
	r, err := gardenercontrolplane.ResolveComponent(v, Name, validate)
	if err != nil {
		return nil, err
	}
	return r.ControllerObjects(gardenercontrolplane.Controller{
		Image:         images.GardenerScheduler,
		PriorityClass: priorityclasses.GardenSystem200, // Gardener's docs/development/priority-classes.md
		HealthPort:    HealthProbePort,
		MetricsPort:   MetricsPort,
		CPU:           "50m",
		Memory:        "64Mi",
	}, schedulerConfig(r.Resolved, r.Values.Strategy), rules())
}

// validate checks the scheduler's own value, its strategy.
func validate(v *Values) error {
	if !slices.Contains(Strategies, v.Strategy) {
		return fmt.Errorf("strategy %q is not one of SameRegion, MinimalDistance", v.Strategy)
	}
	return nil
}

// schedulerConfig is the SchedulerConfiguration (Gardener's docs/concepts/scheduler.md); the
// scheduler serves no webhooks, so it needs no TLS (Gardener's docs/concepts/scheduler.md).
func schedulerConfig(r gardenercontrolplane.Resolved, strategy string) map[string]any {
	out := r.ControllerConfig("scheduler.config.gardener.cloud/v1alpha1", "SchedulerConfiguration",
		"clientConnection", HealthProbePort, MetricsPort)
	out["schedulers"] = map[string]any{"shoot": map[string]any{
		"concurrentSyncs":                5,
		"retrySyncPeriod":                "15s",
		"candidateDeterminationStrategy": strategy,
	}}
	return out
}

// rules let the scheduler read what its algorithm weighs (Gardener's docs/concepts/scheduler.md):
// seeds, shoots, cloud profiles, projects and the region-config ConfigMaps; bind shoots to seeds
// through shoots/binding (Gardener's docs/concepts/scheduler.md); report unschedulable shoots in
// events and their status (Gardener's docs/concepts/scheduler.md); and hold its leader election
// Lease.
func rules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return append([]rbacv1.PolicyRule{
		{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"cloudprofiles", "namespacedcloudprofiles", "projects", "seeds", "shoots"}, Verbs: read},
		{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"shoots/binding", "shoots/status"}, Verbs: []string{"patch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: read},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	}, gardenercontrolplane.LeaderElectionRules()...)
}
