// Package cloudprofile renders the cloud_profile component: a CloudProfile
// (core.gardener.cloud/v1beta1, cluster-scoped, Gardener's CloudProfile in
// docs/api-reference/core.md) listing what one provider environment offers shoots: Kubernetes
// versions, machine images, machine and volume types, regions and zones. Shoots reference it, so it
// comes before them (Gardener's docs/concepts/apiserver-admission-plugins.md, Gardener's "APIServer
// Admission Plugins" docs/concepts/apiserver-admission-plugins.md).
package cloudprofile

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the CloudProfile (Gardener's CloudProfile in
// docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "CloudProfile"
)

// Values are the component's typed inputs. Lists keep the order given; names must be unique.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the profile's name, which shoots set as cloudProfile; rendering defaults it to
	// the instance name.
	Name string `json:"name"`
	// Type is the provider type, such as aws or local (Gardener's CloudProfile in
	// docs/api-reference/core.md).
	Type string `json:"type"`
	// KubernetesVersions are the Kubernetes versions shoots may use.
	KubernetesVersions []KubernetesVersion `json:"kubernetes_version"`
	// MachineImages are the operating system images worker pools may use.
	MachineImages []MachineImage `json:"machine_image"`
	// MachineTypes are the machine types worker pools may use.
	MachineTypes []MachineType `json:"machine_type"`
	// VolumeTypes are the volume types worker pools may use.
	VolumeTypes []VolumeType `json:"volume_type"`
	// Regions are the regions and zones shoots may use.
	Regions []Region `json:"region"`
	// ProviderConfig is the provider extension's free-form profile configuration (Gardener's
	// CloudProfile in docs/api-reference/core.md).
	ProviderConfig map[string]any `json:"provider_config"`
	// CABundle is installed on every machine of shoots using the profile (Gardener's CloudProfile in
	// docs/api-reference/core.md).
	CABundle string `json:"ca_bundle"`
}

// Type is the cloud_profile component type as the catalog registers it: its schema (schema.go) and its
// render function; its outputs are the profile's name and the CloudProfile itself.
var Type = component.Define(typeSchema, renderWithObject)

// renderWithObject renders the CloudProfile and adds it as the output object, which shoots embed in their
// extensions Cluster (pkg/extensions/cluster.go at Gardener v1.120.0).
func renderWithObject(in render.Input, v Values) (*render.Output, error) {
	out, err := gardenapi.Object[Values]{
		What:    "cloud profile",
		Meta:    func(v *Values) (*string, *string) { return &v.Name, nil },
		Objects: Objects,
	}.Render(in, v)
	if err != nil || len(out.Objects) != 1 {
		return out, err
	}
	object, err := decode.Value(out.Objects[0].Object.Object)
	if err != nil {
		return nil, fmt.Errorf("cloud profile %s: %w", v.Name, err)
	}
	out.Outputs["object"] = object
	return out, nil
}

// Objects renders the CloudProfile.
func Objects(v Values) ([]render.Object, error) {
	if err := gardenapi.ValidateName("cloud profile", v.Name); err != nil {
		return nil, err
	}
	spec, err := buildSpec(v)
	if err != nil {
		return nil, fmt.Errorf("cloud profile %s: %w", v.Name, err)
	}
	u := kube.Custom(APIVersion, Kind, "", v.Name, nil, map[string]any{"spec": spec})
	return kube.On(v.Cluster.Name, "", u), nil
}

func buildSpec(v Values) (map[string]any, error) {
	if v.Type == "" {
		return nil, fmt.Errorf("type is required")
	}
	spec := map[string]any{"type": v.Type}
	steps := []struct {
		field string
		build func() (any, error)
	}{
		{"kubernetes", func() (any, error) { return kubernetes(v.KubernetesVersions) }},
		{"machineImages", func() (any, error) { return machineImages(v.MachineImages) }},
		{"machineTypes", func() (any, error) { return machineTypes(v.MachineTypes) }},
		{"volumeTypes", func() (any, error) {
			if len(v.VolumeTypes) == 0 { // optional (Gardener's CloudProfile in docs/api-reference/core.md); an empty list is left out
				return nil, nil
			}
			return volumeTypes(v.VolumeTypes)
		}},
		{"regions", func() (any, error) { return regions(v.Regions) }},
	}
	for _, s := range steps {
		out, err := s.build()
		if err != nil {
			return nil, err
		}
		if out != nil {
			spec[s.field] = out
		}
	}
	if len(v.ProviderConfig) > 0 {
		pc, err := gardenapi.Normalise(v.ProviderConfig)
		if err != nil {
			return nil, fmt.Errorf("provider config: %w", err)
		}
		spec["providerConfig"] = pc
	}
	if v.CABundle != "" {
		spec["caBundle"] = v.CABundle
	}
	return spec, nil
}

// unique reports the first name that appears twice, or "".
func unique(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// entries is a list of the profile that offers at least one entry, each with its own name: what
// names the list's entries in "at least one ... is required", entry names one in the other errors
// (the same, but for the Kubernetes versions' "the Kubernetes version"). name is an entry's name,
// checkName checks it and render renders the entry; render's errors are prefixed with the entry.
type entries[T any] struct {
	what, entry string
	name        func(T) string
	checkName   func(string) error
	render      func(T) (any, error)
}

// named is entries whose names may be anything but empty.
func named[T any](what string, name func(T) string, render func(T) (any, error)) entries[T] {
	checkName := func(n string) error {
		if n == "" {
			return fmt.Errorf("a %s needs a name", what)
		}
		return nil
	}
	return entries[T]{what: what, entry: what, name: name, checkName: checkName, render: render}
}

// of renders the list.
func (l entries[T]) of(items []T) ([]any, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("at least one %s is required", l.what)
	}
	names := make([]string, len(items))
	out := make([]any, 0, len(items))
	for i, item := range items {
		names[i] = l.name(item)
		if err := l.checkName(names[i]); err != nil {
			return nil, err
		}
		m, err := l.render(item)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", l.entry, names[i], err)
		}
		out = append(out, m)
	}
	if d := unique(names); d != "" {
		return nil, fmt.Errorf("%s %s is given twice", l.entry, d)
	}
	return out, nil
}
