package extension

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The ControllerInstallation's API version and kind (Gardener's ControllerInstallation in
// docs/api-reference/core.md, "ControllerRegistration" docs/extensions/registration.md).
const (
	InstallationAPIVersion = "core.gardener.cloud/v1beta1"
	InstallationKind       = "ControllerInstallation"
)

// registration is what the extension renders in the virtual garden: its ControllerDeployment
// and ControllerRegistration, and the chart's static values, normalised, which every
// installation mixes Gardener's values into. It reads the chart through Paths; otherwise it is pure.
type registered struct {
	Objects []render.Object
	Values  map[string]any
}

// renderRegistration renders the extension's ControllerDeployment and ControllerRegistration and checks
// the values its installations need.
func renderRegistration(v Values) (*registered, error) {
	if v.VirtualCluster.Name == "" {
		return nil, fmt.Errorf("extension %s: the virtual cluster is required", v.Name)
	}
	reg := controllerregistration.Type.Defaults()
	reg.Cluster, reg.Name, reg.Resources, reg.Policy = v.VirtualCluster, v.Name, v.Resources, v.Policy
	reg.ControllerDeployment, reg.SeedSelector, reg.PodSecurityEnforce = v.Name, v.SeedSelector, v.PodSecurityEnforce
	registration, err := controllerregistration.Objects(reg)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", v.Name, err)
	}
	if v.GardenClusterIdentity == "" {
		return nil, fmt.Errorf("extension %s: the garden cluster identity is required, gardenlet mixes it into the chart values", v.Name)
	}
	if err := validateSeeds(v); err != nil {
		return nil, fmt.Errorf("extension %s: %w", v.Name, err)
	}
	raw, err := rawChart(v.Paths, v.Chart)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", v.Name, err)
	}
	values, err := gardenapi.Normalise(v.HelmValues)
	if err != nil {
		return nil, fmt.Errorf("extension %s: values: %w", v.Name, err)
	}
	dep := controllerdeployment.Type.Defaults()
	dep.Cluster, dep.Name, dep.RawChart, dep.HelmValues = v.VirtualCluster, v.Name, raw, values
	deployment, err := controllerdeployment.Objects(dep)
	if err != nil {
		return nil, fmt.Errorf("extension %s: %w", v.Name, err)
	}
	// The deployment first: the registration refers to it (Gardener's
	// docs/concepts/apiserver-admission-plugins.md).
	return &registered{Objects: append(deployment, registration...), Values: values}, nil
}

// validateSeeds checks the seeds: named, on a cluster, once each, with well-formed kinds and
// types, and names that make part names and the installation's namespace.
func validateSeeds(v Values) error {
	seen := map[string]bool{}
	parts := map[string]string{}
	for _, s := range v.Seeds {
		if s.Name == "" {
			return fmt.Errorf("a seed needs a name")
		}
		if seen[s.Name] {
			return fmt.Errorf("seed %s is given twice", s.Name)
		}
		seen[s.Name] = true
		if other, clash := parts[partName(s.Name)]; clash {
			return fmt.Errorf("seeds %s and %s would both be installed by part %s", other, s.Name, partName(s.Name))
		}
		parts[partName(s.Name)] = s.Name
		if s.Cluster.Name == "" {
			return fmt.Errorf("seed %s: the cluster is required", s.Name)
		}
		// Gardener's generated names are the registration's, a dash and five characters.
		ns := NamespacePrefix + v.Name + "-xxxxx"
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("installation namespace %q is invalid: %s", ns, strings.Join(errs, "; "))
		}
		for _, t := range s.ShootTypes {
			if kind, typ, ok := strings.Cut(t, "/"); !ok || kind == "" || typ == "" || strings.Contains(typ, "/") {
				return fmt.Errorf("seed %s: shoot type %q is not kind/type, such as Infrastructure/local", s.Name, t)
			}
		}
	}
	return nil
}

// partName is the part that installs the extension on a seed: installation_<seed>, the seed's
// name with its dashes and dots as underscores, as part names are identifiers.
func partName(seed string) string {
	return "installation_" + strings.NewReplacer("-", "_", ".", "_").Replace(seed)
}
