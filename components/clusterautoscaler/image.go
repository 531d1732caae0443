package clusterautoscaler

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/declarative-gardener/gardener/components/images"
)

// tagsByMinor are the autoscaler releases of Gardener's image vector by the shoot's Kubernetes
// minor version (cluster-autoscaler in imagevector/containers.yaml, gardener/gardener v1.120.0);
// 1.32 and newer take the 1.32 release, the vector's default.
var tagsByMinor = map[uint]string{27: "v1.27.3", 28: "v1.28.3", 29: "v1.29.2", 30: "v1.30.2", 31: "v1.31.0"}

// image is the autoscaler release for the shoot's Kubernetes version, as gardenlet finds it by
// target version; an override in images wins, and no version gives the vector's default.
func image(overrides map[string]string, kubernetesVersion string) (string, error) {
	if _, ok := overrides[images.ClusterAutoscaler]; ok || kubernetesVersion == "" {
		return images.Of(overrides, images.ClusterAutoscaler, "")
	}
	v, err := version.ParseGeneric(kubernetesVersion)
	if err != nil {
		return "", fmt.Errorf("kubernetes version %q: %w", kubernetesVersion, err)
	}
	if v.Major() != 1 || v.Minor() < 27 {
		return "", fmt.Errorf("kubernetes version %q: Gardener's image vector has no cluster-autoscaler for it (1.27 or newer)", kubernetesVersion)
	}
	withTag := map[string]string{}
	for k, val := range overrides {
		withTag[k] = val
	}
	if tag, ok := tagsByMinor[v.Minor()]; ok {
		withTag[images.ClusterAutoscaler] = tag
	}
	return images.Of(withTag, images.ClusterAutoscaler, "")
}
