package kube

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// NonRootPod runs a pod's containers as user, never as root, under the container runtime's
// default seccomp profile: the pod-level settings of Kubernetes' restricted Pod Security Standard
// (kubernetes.io docs/concepts/security/pod-security-standards).
func NonRootPod(user int64) *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To(user),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// NonRootPodOwningVolumes is NonRootPod with the user's id as the group of the containers'
// processes and of the pod's volumes (fsGroup), so that the user may write to the volumes.
func NonRootPodOwningVolumes(user int64) *corev1.PodSecurityContext {
	s := NonRootPod(user)
	s.RunAsGroup = ptr.To(user)
	s.FSGroup = ptr.To(user)
	return s
}

// Unprivileged keeps a container from gaining privileges: no privilege escalation and no
// capabilities, the container-level settings of the restricted Pod Security Standard.
func Unprivileged() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// UnprivilegedReadOnly is Unprivileged with a read-only root file system, for containers that
// write only to their volumes.
func UnprivilegedReadOnly() *corev1.SecurityContext {
	s := Unprivileged()
	s.ReadOnlyRootFilesystem = ptr.To(true)
	return s
}
