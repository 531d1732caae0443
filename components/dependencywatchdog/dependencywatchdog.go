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

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// DefaultNamespace is the seed's garden namespace (Gardener's docs/operations/seed_settings.md).
const DefaultNamespace = "garden"

// Role is one of the two instances.
type Role string

// The instances, each a Deployment named dependency-watchdog-<role>
// (pkg/component/nodemanagement/dependencywatchdog/bootstrap.go).
const (
	Prober Role = "prober"
	Weeder Role = "weeder"
)

// Name is the name of an instance's Deployment, ServiceAccount, PodDisruptionBudget,
// VerticalPodAutoscaler and (prefixed with gardener.cloud:) RBAC objects.
func Name(r Role) string { return "dependency-watchdog-" + string(r) }

// ConfigMapBaseName is the name of an instance's configuration ConfigMap before the checksum of
// its content is appended (see components/internal/unique).
func ConfigMapBaseName(r Role) string { return Name(r) + "-config" }

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the seed cluster.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all namespaced objects, the seed's garden namespace.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (dependency-watchdog).
	Images map[string]string `json:"images"`
	// ProberEnabled deploys the prober, like the seed setting
	// .spec.settings.dependencyWatchdog.prober.enabled (SeedSettingDependencyWatchdogProber).
	ProberEnabled bool `json:"prober_enabled"`
	// WeederEnabled deploys the weeder, like .spec.settings.dependencyWatchdog.weeder.enabled
	// (SeedSettingDependencyWatchdogWeeder).
	WeederEnabled bool `json:"weeder_enabled"`
}

// Type is the dependency_watchdog component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders, for each enabled instance, the objects gardenlet packs into its ManagedResource
// (pkg/component/nodemanagement/dependencywatchdog/bootstrap.go): the ServiceAccount, the
// ClusterRole, Role and their bindings, the content-addressed configuration ConfigMap, the
// Deployment, its PodDisruptionBudget and its VerticalPodAutoscaler.
func Objects(v Values) ([]render.Object, error) {
	ns := v.Namespace
	image, err := images.Of(v.Images, images.DependencyWatchdog, "")
	if err != nil {
		return nil, fmt.Errorf("dependency-watchdog images: %w", err)
	}
	var out []render.Object
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
		typed := rbac(r.role, ns)
		d := deployment(r.role, ns, image, cm.Name)
		typed = append(typed, cm, d, disruptionBudget(r.role, ns))
		objs, err := kube.Typed(v.Cluster.Name, typed...)
		if err != nil {
			return nil, err
		}
		objs = append(objs, kube.On(v.Cluster.Name, "", verticalAutoscaler(r.role, ns))...)
		unique.MarkVersions(objs, "ConfigMap", ConfigMapBaseName(r.role))
		out = append(out, objs...)
	}
	return out, nil
}
