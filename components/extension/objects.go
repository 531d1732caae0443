package extension

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/helmrelease"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The ControllerInstallation's API version and kind (Gardener's ControllerInstallation in
// docs/api-reference/core.md, "ControllerRegistration" docs/extensions/registration.md).
const (
	InstallationAPIVersion = "core.gardener.cloud/v1beta1"
	InstallationKind       = "ControllerInstallation"
)

// Names and labels of what an installation renders in its seed.
const (
	// SeedGardenNamespace holds the installation's ManagedResource in the seed (Gardener's "gardenlet"
	// docs/concepts/gardenlet.md).
	SeedGardenNamespace = "garden"
	// ManagedResourceClass is the class of the seed's own gardener-resource-manager, which
	// applies the chart's objects into the seed (Gardener's "Gardener Resource Manager"
	// docs/concepts/resource-manager.md).
	ManagedResourceClass = "seed"
	// LabelInstallation on the ManagedResource names the owning ControllerInstallation (Gardener's
	// docs/concepts/gardenlet.md).
	LabelInstallation = "controllerinstallation-name"
	// LabelRegistration on the extension's namespace names its ControllerRegistration; gardenlet
	// labels the extension's garden ServiceAccount so (Gardener's "Access to the Garden Cluster for
	// Extensions" docs/extensions/garden-api-access.md), we label the namespace alike.
	LabelRegistration = "controllerregistration.core.gardener.cloud/name"
	// LabelRole marks the namespace as an extension's; our choice, as Gardener marks its other
	// namespaces by role.
	LabelRole = "gardener.cloud/role"
	// LabelHAConsider lets the resource manager's high-availability webhook handle the
	// extension's workloads like those of other seed system components (Gardener's "High Availability
	// Of Components" docs/development/high-availability-of-components.md).
	LabelHAConsider = "high-availability-config.resources.gardener.cloud/consider"
	// LabelPodSecurityEnforce is set from the registration's pod security level (Gardener's
	// "Conventions" docs/extensions/conventions.md).
	LabelPodSecurityEnforce = "pod-security.kubernetes.io/enforce"
)

// Objects renders the ControllerDeployment and ControllerRegistration in the virtual garden and,
// for every seed Installations installs the extension on, the ControllerInstallation in the
// virtual garden and, in the seed, the namespace extension-<installation> and the chart's objects
// in a ManagedResource. It reads the chart from Dir; otherwise it is pure.
func Objects(v Values) ([]render.Object, error) {
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
	raw, err := rawChart(v.Dir, v.Chart)
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
	out := append(deployment, registration...)
	seeds := map[string]Seed{}
	for _, s := range v.Seeds {
		seeds[s.Name] = s
	}
	for _, i := range Installations(v) {
		if !i.Installed {
			continue
		}
		objs, err := installation(v, values, seeds[i.Seed], i)
		if err != nil {
			return nil, fmt.Errorf("extension %s: seed %s: %w", v.Name, i.Seed, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// validateSeeds checks the seeds: named, on a cluster, once each, with well-formed kinds and
// types, and names short enough for the installation's namespace.
func validateSeeds(v Values) error {
	seen := map[string]bool{}
	for _, s := range v.Seeds {
		if s.Name == "" {
			return fmt.Errorf("a seed needs a name")
		}
		if seen[s.Name] {
			return fmt.Errorf("seed %s is given twice", s.Name)
		}
		seen[s.Name] = true
		if s.Cluster.Name == "" {
			return fmt.Errorf("seed %s: the cluster is required", s.Name)
		}
		ns := NamespacePrefix + v.Name + "-" + s.Name
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("seed %s: installation namespace %q is invalid: %s", s.Name, ns, strings.Join(errs, "; "))
		}
		for _, t := range s.ShootTypes {
			if kind, typ, ok := strings.Cut(t, "/"); !ok || kind == "" || typ == "" || strings.Contains(typ, "/") {
				return fmt.Errorf("seed %s: shoot type %q is not kind/type, such as Infrastructure/local", s.Name, t)
			}
		}
	}
	return nil
}

// installation renders one seed's ControllerInstallation, namespace and ManagedResource.
func installation(v Values, values map[string]any, s Seed, i Installation) ([]render.Object, error) {
	ci := kube.Custom(InstallationAPIVersion, InstallationKind, "", i.Name, nil, map[string]any{"spec": map[string]any{
		"registrationRef": map[string]any{"name": v.Name},
		"deploymentRef":   map[string]any{"name": v.Name},
		"seedRef":         map[string]any{"name": s.Name},
	}})
	labels := map[string]string{LabelRole: "extension", LabelRegistration: v.Name, LabelHAConsider: "true"}
	if v.PodSecurityEnforce != "" {
		labels[LabelPodSecurityEnforce] = v.PodSecurityEnforce
	}
	ns, err := kube.ToUnstructured(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: i.Namespace, Labels: labels}})
	if err != nil {
		return nil, err
	}
	// gardenlet installs the chart as the registration, in the installation's namespace, with
	// the mix-ins over the static values (Gardener's docs/extensions/registration.md); the release
	// name is our choice, so that the chart's object names are the same on every seed.
	rendered, err := helmrelease.Objects(helmrelease.Values{
		Cluster: s.Cluster, Chart: v.Chart, Dir: v.Dir, Namespace: i.Namespace, ReleaseName: v.Name,
		Values: merge(values, mixins(v, s)),
	})
	if err != nil {
		return nil, fmt.Errorf("rendering the chart: %w", err)
	}
	objs := make([]*unstructured.Unstructured, 0, len(rendered))
	for _, o := range rendered {
		objs = append(objs, o.Object)
	}
	packed, err := managedresource.Pack(managedresource.Spec{
		Cluster: s.Cluster.Name, Namespace: SeedGardenNamespace, Name: i.Name, Class: ManagedResourceClass, Objects: objs,
	})
	if err != nil {
		return nil, err
	}
	for _, o := range packed {
		if o.Object.GetKind() == "ManagedResource" {
			o.Object.SetLabels(map[string]string{LabelInstallation: i.Name})
		}
	}
	out := kube.On(v.VirtualCluster.Name, "", ci)
	out = append(out, kube.On(s.Cluster.Name, "", ns)...)
	return append(out, packed...), nil
}
