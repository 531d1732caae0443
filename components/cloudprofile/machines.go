package cloudprofile

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/engine/render"
)

// MachineType is a machine type worker pools may use (Gardener's MachineType in
// docs/api-reference/core.md).
type MachineType struct {
	Name string `json:"name"`
	// CPU, GPU and Memory are quantities such as "4", "0" and "16Gi".
	CPU    string `json:"cpu"`
	GPU    string `json:"gpu"`
	Memory string `json:"memory"`
	// Architecture is the CPU architecture.
	Architecture string `json:"architecture"`
	// Usable says whether shoots may use the type.
	Usable bool `json:"usable"`
	// Storage describes the root volume, for types with a fixed one (Gardener's MachineTypeStorage in
	// docs/api-reference/core.md).
	Storage *MachineTypeStorage `json:"storage"`
}

// MachineTypeStorage is the root volume of a machine type.
type MachineTypeStorage struct {
	Class   string `json:"class"`
	Type    string `json:"type"`
	Size    string `json:"size"`
	MinSize string `json:"min_size"`
}

// VolumeType is a volume type worker pools may use (Gardener's VolumeType in
// docs/api-reference/core.md).
type VolumeType struct {
	Name string `json:"name"`
	// Class is the volume class, such as standard or premium.
	Class string `json:"class"`
	// Usable says whether shoots may use the type.
	Usable bool `json:"usable"`
	// MinSize is the smallest volume size, such as 20Gi.
	MinSize string `json:"min_size"`
}

// quantity parses a non-negative quantity and returns it in canonical form (16384Mi becomes 16Gi),
// as the API server returns it, so that plans do not show a spelling as a diff.
func quantity(what, s string) (string, error) {
	if strings.Contains(s, render.UnknownString) {
		return s, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return "", fmt.Errorf("%s %q is not a quantity such as 4 or 16Gi", what, s)
	}
	if q.Sign() < 0 {
		return "", fmt.Errorf("%s %q is negative", what, s)
	}
	return q.String(), nil
}

// machineTypes renders spec.machineTypes; a profile offers at least one.
func machineTypes(ts []MachineType) ([]any, error) {
	return named("machine type", func(t MachineType) string { return t.Name }, func(t MachineType) (any, error) {
		return machineType(t)
	}).of(ts)
}

func machineType(t MachineType) (map[string]any, error) {
	m := map[string]any{"name": t.Name, "architecture": t.Architecture, "usable": t.Usable}
	for _, f := range []struct{ field, value string }{{"cpu", t.CPU}, {"gpu", t.GPU}, {"memory", t.Memory}} {
		if f.value == "" {
			return nil, fmt.Errorf("%s is required", f.field)
		}
		q, err := quantity(f.field, f.value)
		if err != nil {
			return nil, err
		}
		m[f.field] = q
	}
	if s := t.Storage; s != nil {
		if s.Class == "" || s.Type == "" {
			return nil, fmt.Errorf("storage needs a class and a type")
		}
		storage := map[string]any{"class": s.Class, "type": s.Type}
		for _, f := range []struct{ field, value string }{{"size", s.Size}, {"minSize", s.MinSize}} {
			if f.value == "" {
				continue
			}
			q, err := quantity("storage "+f.field, f.value)
			if err != nil {
				return nil, err
			}
			storage[f.field] = q
		}
		m["storage"] = storage
	}
	return m, nil
}

// volumeTypes renders spec.volumeTypes, which are optional.
func volumeTypes(ts []VolumeType) ([]any, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	names := make([]string, len(ts))
	out := make([]any, 0, len(ts))
	for i, t := range ts {
		names[i] = t.Name
		if t.Name == "" || t.Class == "" {
			return nil, fmt.Errorf("a volume type needs a name and a class")
		}
		m := map[string]any{"name": t.Name, "class": t.Class, "usable": t.Usable}
		if t.MinSize != "" {
			q, err := quantity("minimum size", t.MinSize)
			if err != nil {
				return nil, fmt.Errorf("volume type %s: %w", t.Name, err)
			}
			m["minSize"] = q
		}
		out = append(out, m)
	}
	if d := unique(names); d != "" {
		return nil, fmt.Errorf("volume type %s is given twice", d)
	}
	return out, nil
}
