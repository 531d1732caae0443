// Package dependencywatchdog renders the dependency_watchdog component: the two instances of
// dependency-watchdog that gardenlet deploys into a seed's garden namespace (Gardener's "Seed
// Bootstrapping" docs/operations/seed_bootstrapping.md, "Seed Settings"
// docs/operations/seed_settings.md). The prober scales down kube-controller-manager,
// machine-controller-manager and cluster-autoscaler of a shoot while its kube-apiserver is
// reachable in-cluster but not through its load balancer (Gardener's
// docs/operations/seed_bootstrapping.md); the weeder restarts crash-looping control-plane pods as
// soon as what they depend on is available again (Gardener's
// docs/operations/seed_bootstrapping.md).
package dependencywatchdog

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// DefaultNamespace is the seed's garden namespace (Gardener's docs/operations/seed_settings.md).
const DefaultNamespace = "garden"

// Role is one of the two instances.
type Role string

// The instances, each a Deployment named dependency-watchdog-<role> (Gardener's
// docs/operations/seed_bootstrapping.md).
const (
	Prober Role = "prober"
	Weeder Role = "weeder"
)

// Name is the name of an instance's Deployment, ServiceAccount and RBAC objects.
func Name(r Role) string { return "dependency-watchdog-" + string(r) }

// ConfigMapName is the name of an instance's configuration ConfigMap.
func ConfigMapName(r Role) string { return Name(r) + "-config" }

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the seed cluster.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all namespaced objects (Gardener's docs/operations/seed_settings.md).
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (dependency-watchdog).
	Images map[string]string `json:"images"`
	// HighAvailability runs 2 leader-electing replicas of each instance, spread over nodes and
	// zones, with PodDisruptionBudgets, instead of 1 (controllers, Gardener's "High Availability Of
	// Components" docs/development/high-availability-of-components.md).
	HighAvailability bool `json:"high_availability"`
	// ProberEnabled deploys the prober, like the seed setting
	// .spec.settings.dependencyWatchdog.prober.enabled (Gardener's SeedSettingDependencyWatchdogProber
	// in docs/api-reference/core.md, docs/operations/seed_settings.md).
	ProberEnabled bool `json:"prober_enabled"`
	// WeederEnabled deploys the weeder, like
	// .spec.settings.dependencyWatchdog.weeder.enabled (Gardener's SeedSettingDependencyWatchdogWeeder
	// in docs/api-reference/core.md, docs/operations/seed_settings.md).
	WeederEnabled bool `json:"weeder_enabled"`
}

// Type is the dependency_watchdog component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders, for each enabled instance, its ServiceAccount, RBAC, configuration ConfigMap,
// Deployment and, with high availability, its PodDisruptionBudget.
func Objects(v Values) ([]render.Object, error) {
	ns := v.Namespace
	image, err := images.Of(v.Images, images.DependencyWatchdog, "")
	if err != nil {
		return nil, fmt.Errorf("dependency-watchdog images: %w", err)
	}
	var typed []runtime.Object
	for _, r := range []struct {
		role    Role
		enabled bool
	}{{Prober, v.ProberEnabled}, {Weeder, v.WeederEnabled}} {
		if !r.enabled {
			continue
		}
		config, err := configuration(r.role)
		if err != nil {
			return nil, err
		}
		cm := configMap(r.role, ns, config)
		typed = append(typed, rbac(r.role, ns)...)
		typed = append(typed, cm, deployment(r.role, ns, image, v.HighAvailability, config))
		if v.HighAvailability {
			typed = append(typed, disruption.Budget(ns, Name(r.role), selectorLabels(r.role)))
		}
	}
	return kube.Typed(v.Cluster.Name, typed...)
}
