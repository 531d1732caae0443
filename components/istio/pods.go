package istio

import (
	"github.com/declarative-gardener/gardener/components/internal/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// istioPod is the pod of an Istio component, istiod or an ingress gateway: one container of an
// Istio image, run as Istio's unprivileged user without privileges, with requests and no limits so
// that a load peak is not throttled (an operator's choice; Gardener's documentation gives none),
// spread over nodes and zones like the component's replicas.
type istioPod struct {
	serviceAccount string
	// noToken leaves the service account's token out of the pod: it talks to istiod only.
	noToken       bool
	priorityClass string
	spread        []corev1.TopologySpreadConstraint
	container     string
	image         string
	args          []string
	ports         []corev1.ContainerPort
	env           []corev1.EnvVar
	readiness     *corev1.Probe
	cpu, memory   string
	mounts        []corev1.VolumeMount
	volumes       []corev1.Volume
}

// spec is the pod's spec.
func (p istioPod) spec() corev1.PodSpec {
	spec := corev1.PodSpec{
		ServiceAccountName:        p.serviceAccount,
		PriorityClassName:         p.priorityClass,
		SecurityContext:           kube.NonRootPodOwningVolumes(istioUser),
		TopologySpreadConstraints: p.spread,
		Containers: []corev1.Container{{
			Name:           p.container,
			Image:          p.image,
			Args:           p.args,
			Ports:          p.ports,
			Env:            p.env,
			ReadinessProbe: p.readiness,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(p.cpu),
				corev1.ResourceMemory: resource.MustParse(p.memory),
			}},
			SecurityContext: containerSecurity(),
			VolumeMounts:    p.mounts,
		}},
		Volumes: p.volumes,
	}
	if p.noToken {
		spec.AutomountServiceAccountToken = ptr.To(false)
	}
	return spec
}

// istioUser is the uid and gid Istio's distroless images run as.
const istioUser int64 = 1337

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

// containerSecurity is kube.UnprivilegedReadOnly that also says the container is not privileged.
func containerSecurity() *corev1.SecurityContext {
	s := kube.UnprivilegedReadOnly()
	s.Privileged = ptr.To(false)
	return s
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
