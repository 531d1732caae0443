package shootaccess

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// GenericKubeconfigVolume is Volume as gardenlet injects it into the control-plane components it
// deploys (InjectGenericKubeconfig in pkg/utils/gardener/shoot.go, gardener/gardener v1.120.0):
// the volume kubeconfig with mode 0644 whose two Secrets must exist (optional false), so that a
// pod does not start with a kubeconfig that has no token next to it.
func (a Access) GenericKubeconfigVolume() corev1.Volume {
	v := a.Volume()
	v.Projected.DefaultMode = ptr.To(int32(0o644))
	for i := range v.Projected.Sources {
		v.Projected.Sources[i].Secret.Optional = ptr.To(false)
	}
	return v
}
