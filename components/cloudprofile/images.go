package cloudprofile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// The update strategies of a machine image (Gardener's MachineImage in docs/api-reference/core.md);
// major is Gardener's default.
const (
	UpdatePatch = "patch"
	UpdateMinor = "minor"
	UpdateMajor = "major"
)

// UpdateStrategies lists the machine image update strategies.
var UpdateStrategies = []string{UpdatePatch, UpdateMinor, UpdateMajor}

// criContainerd is the only CRI name Gardener supports (Gardener's CRI in
// docs/api-reference/core.md).
const criContainerd = "containerd"

// archAMD64 is the architecture of images and machine types that name none. Gardener's
// documentation does not give the default; Gardener defaults both to amd64, which an operator
// expects, and rendering it keeps plans free of server-side additions.
const archAMD64 = "amd64"

// MachineImage is an operating system image with its versions (Gardener's MachineImage in
// docs/api-reference/core.md).
type MachineImage struct {
	Name string `json:"name"`
	// UpdateStrategy is how far automatic updates go: patch, minor or major.
	UpdateStrategy string `json:"update_strategy"`
	// Versions are the image's versions.
	Versions []ImageVersion `json:"version"`
}

// ImageVersion is one version of a machine image (MachineImageVersion, Gardener's
// MachineImageVersion in docs/api-reference/core.md).
type ImageVersion struct {
	Version string `json:"version"`
	// Classification is preview, supported or deprecated; "" leaves it to Gardener.
	Classification string `json:"classification"`
	// ExpirationDate is an RFC 3339 time after which the version may no longer be used.
	ExpirationDate string `json:"expiration_date"`
	// CRI names the container runtimes the version supports; empty means containerd, the only
	// one Gardener supports.
	CRI []string `json:"cri"`
	// Architectures are the CPU architectures the version exists for.
	Architectures []string `json:"architectures"`
	// KubeletVersionConstraint limits the kubelet versions, such as ">= 1.26" (Gardener's
	// MachineImageVersion in docs/api-reference/core.md).
	KubeletVersionConstraint string `json:"kubelet_version_constraint"`
}

// machineImages renders spec.machineImages; a profile offers at least one image with a version.
func machineImages(images []MachineImage) ([]any, error) {
	return named("machine image", func(img MachineImage) string { return img.Name }, func(img MachineImage) (any, error) {
		strategy := img.UpdateStrategy
		if !slices.Contains(UpdateStrategies, strategy) {
			return nil, fmt.Errorf("update strategy %q is not one of %s", strategy, strings.Join(UpdateStrategies, ", "))
		}
		versions, err := imageVersions(img.Versions)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": img.Name, "updateStrategy": strategy, "versions": versions}, nil
	}).of(images)
}

func imageVersions(vs []ImageVersion) ([]any, error) {
	versions := named("version", func(v ImageVersion) string { return v.Version }, func(v ImageVersion) (any, error) {
		m, err := expirable(v.Version, v.Classification, v.ExpirationDate)
		if err != nil {
			return nil, err
		}
		cri := v.CRI
		if len(cri) == 0 {
			// An explicitly empty list, which the schema's default (for an absent one) does not
			// cover: containerd is Gardener's only CRI.
			cri = []string{criContainerd}
		}
		list := make([]any, len(cri))
		for j, c := range cri {
			if c != criContainerd {
				return nil, fmt.Errorf("CRI %q is not supported; only containerd is", c)
			}
			list[j] = map[string]any{"name": c}
		}
		if d := unique(cri); d != "" {
			return nil, fmt.Errorf("CRI %s is given twice", d)
		}
		m["cri"] = list
		archs := v.Architectures
		if d := unique(archs); d != "" {
			return nil, fmt.Errorf("architecture %s is given twice", d)
		}
		m["architectures"] = kube.AnyList(archs)
		if v.KubeletVersionConstraint != "" {
			m["kubeletVersionConstraint"] = v.KubeletVersionConstraint
		}
		return m, nil
	})
	// A version's name is its version string.
	versions.checkName = func(v string) error {
		if v == "" {
			return fmt.Errorf("a version needs a version string")
		}
		return nil
	}
	return versions.of(vs)
}
