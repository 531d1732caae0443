// Package gardenercontrolplane holds what the four Gardener control plane components
// (gardener-apiserver, gardener-admission-controller, gardener-controller-manager and
// gardener-scheduler) share: gardener-operator runs all of them in the garden runtime cluster,
// serving the virtual garden (Gardener's "Gardener Operator" docs/concepts/operator.md), so they
// take the same inputs, authenticate to the virtual garden the same way and are shaped alike.
package gardenercontrolplane

import (
	"fmt"
	"slices"
	"strings"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

// DefaultNamespace is the runtime cluster namespace of the Gardener control plane: gardener-operator
// and the legacy control plane chart both use garden (Gardener's "Setup Gardener"
// docs/deployment/setup_gardener.md).
const DefaultNamespace = "garden"

// VirtualSystemNamespace is the virtual garden namespace of the components' ServiceAccounts and of
// the gardener-apiserver Service the APIServices point at (Gardener's docs/concepts/operator.md).
const VirtualSystemNamespace = "kube-system"

// LogLevels are the log levels the components accept; info is the default (Gardener's
// GardenerAdmissionControllerConfig in docs/api-reference/operator.md,
// GardenerControllerManagerConfig in docs/api-reference/operator.md, GardenerDashboardConfig in
// docs/api-reference/operator.md).
var LogLevels = []string{"info", "debug", "error"}

// DefaultLogLevel is the documented default log level (Gardener's GardenerAdmissionControllerConfig
// in docs/api-reference/operator.md, GardenerControllerManagerConfig in
// docs/api-reference/operator.md, GardenerDashboardConfig in docs/api-reference/operator.md).
const DefaultLogLevel = "info"

// Common are the inputs every control plane component takes. Each component's Values embed it, so
// its json tags are attribute names of every component's schema.
type Common struct {
	// Cluster is the garden runtime cluster the Deployment, Service and ConfigMap go to.
	Cluster decode.Cluster `json:"cluster"`
	// VirtualCluster is the virtual garden cluster the component serves or watches: its RBAC,
	// webhook configurations and APIServices are created there.
	VirtualCluster decode.Cluster `json:"virtual_cluster"`
	// Namespace is the runtime cluster namespace.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by image name.
	Images map[string]string `json:"images"`
	// HighAvailability spreads the pods across zones and raises replica counts where the
	// documents give HA rules.
	HighAvailability bool `json:"high_availability"`
	// LogLevel is one of LogLevels.
	LogLevel string `json:"log_level"`
	// FeatureGates switches feature gates of the component on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// GenericKubeconfigSecretName names the runtime Secret (key "kubeconfig") with the generic
	// token kubeconfig for the virtual garden, whose user reads its token from the file "token"
	// next to it. gardener-operator names it in the Garden's
	// generic-token-kubeconfig.secret.gardener.cloud/name annotation (Gardener's
	// docs/concepts/operator.md).
	GenericKubeconfigSecretName string `json:"generic_kubeconfig_secret_name"`
	// AccessSecretName names the token-requestor Secret the component renders and mounts (key
	// "token"); "" means "shoot-access-<component>" (see AccessSecret).
	AccessSecretName string `json:"access_secret_name"`
}

// Resolved is Common validated, with the defaults that depend on the component applied.
type Resolved struct {
	Common
	// Component is the component's name, such as gardener-apiserver: the name of its Deployment,
	// Service and of its ServiceAccount in the virtual garden.
	Component string
}

// Resolve checks the values of Common for a component and applies the defaults that depend on it.
func Resolve(c Common, component string) (Resolved, error) {
	if !slices.Contains(LogLevels, c.LogLevel) {
		return Resolved{}, fmt.Errorf("log level %q is not one of %s", c.LogLevel, strings.Join(LogLevels, ", "))
	}
	if c.Cluster.Name == "" {
		return Resolved{}, fmt.Errorf("cluster is not set")
	}
	if c.VirtualCluster.Name == "" {
		return Resolved{}, fmt.Errorf("virtual cluster is not set")
	}
	if c.AccessSecretName == "" {
		c.AccessSecretName = shootaccess.SecretName(component)
	}
	return Resolved{Common: c, Component: component}, nil
}

// Component is one component's values with their Common resolved for it: Values are the
// component's own values (with the resolved Common written back), Resolved what every control
// plane component renders from.
type Component[V any] struct {
	Values V
	Resolved
}

// embedsCommon is what the Values of every control plane component are: values that embed Common.
type embedsCommon interface{ common() *Common }

func (c *Common) common() *Common { return c }

// ResolveComponent resolves the Common that a component's values embed (Resolve) and writes the
// defaults that depend on the component back into them; complete then checks the component's own
// values and applies their defaults that depend on other values. Every error names the component,
// as all four components' errors do.
func ResolveComponent[V any, P interface {
	*V
	embedsCommon
}](v V, component string, complete func(*V) error) (Component[V], error) {
	common := P(&v).common()
	r, err := Resolve(*common, component)
	if err != nil {
		return Component[V]{}, fmt.Errorf("%s: %w", component, err)
	}
	*common = r.Common
	if err := complete(&v); err != nil {
		return Component[V]{}, fmt.Errorf("%s: %w", component, err)
	}
	return Component[V]{Values: v, Resolved: r}, nil
}

// Labels are the labels of a component's objects and the selector of its pods. Gardener labels
// its control plane with app: gardener and the component's role (the legacy chart's garden
// namespace label app: gardener, Gardener's docs/deployment/setup_gardener.md; the role values are
// the component names without the gardener- prefix, which Gardener's documentation does not spell
// out).
func Labels(role string) map[string]string {
	return map[string]string{"app": "gardener", "role": role}
}

// FeatureGatesConfig is the featureGates section of a component configuration, or nil for none.
func FeatureGatesConfig(gates map[string]bool) map[string]any {
	if len(gates) == 0 {
		return nil
	}
	return kube.AnyMap(gates)
}

// GenericKubeconfigSecretName is the runtime Secret with the generic token kubeconfig for the
// virtual garden, as gardener-operator names it (Gardener's docs/concepts/operator.md).
const GenericKubeconfigSecretName = shootaccess.GenericKubeconfigSecretName
