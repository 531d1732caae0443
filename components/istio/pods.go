package istio

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// istioUser is the uid and gid Istio's distroless images run as.
const istioUser int64 = 1337

// replicas is 2 under high availability, else 1 (Gardener's "High Availability Of Components"
// docs/development/high-availability-of-components.md: servers run with 2 replicas).
func replicas(ha bool) int32 {
	if ha {
		return 2
	}
	return 1
}

// spread spreads several replicas over nodes and, unless the pods are pinned to one zone, over
// zones (Gardener's docs/development/high-availability-of-components.md). ScheduleAnyway keeps pods
// schedulable on a single-node cluster.
func spread(n int32, zonal bool, labels map[string]string) []corev1.TopologySpreadConstraint {
	if n < 2 {
		return nil
	}
	keys := []string{corev1.LabelHostname}
	if !zonal {
		keys = append(keys, corev1.LabelTopologyZone)
	}
	out := make([]corev1.TopologySpreadConstraint, len(keys))
	for i, key := range keys {
		out[i] = corev1.TopologySpreadConstraint{
			MaxSkew:           1,
			TopologyKey:       key,
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: labels},
		}
	}
	return out
}

// podSecurity runs the pod as Istio's unprivileged user with the runtime's seccomp profile.
func podSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsUser:      ptr.To(istioUser),
		RunAsGroup:     ptr.To(istioUser),
		RunAsNonRoot:   ptr.To(true),
		FSGroup:        ptr.To(istioUser),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// containerSecurity drops every capability and keeps the root file system read-only.
func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Privileged:               ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// fieldEnv is an environment variable from the pod's own fields.
func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
}

// istioTokenVolume is the projected service account token with audience istio-ca, with which
// proxies (and istiod itself) authenticate to istiod's CA.
func istioTokenVolume() corev1.Volume {
	return corev1.Volume{Name: "istio-token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
			Audience: "istio-ca", ExpirationSeconds: ptr.To[int64](43200), Path: "istio-token",
		}}},
	}}}
}

// emptyDir is a bounded scratch volume; memory-backed ones hold key material. The size limit
// also keeps the volume source non-empty, which kube.Clean would otherwise drop as "emptyDir: {}".
func emptyDir(name, limit string, memory bool) corev1.Volume {
	src := &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(limit))}
	if memory {
		src.Medium = corev1.StorageMediumMemory
	}
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: src}}
}
