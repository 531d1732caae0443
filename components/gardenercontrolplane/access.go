package gardenercontrolplane

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubeconfigDir is where the virtual garden kubeconfig and its token are mounted; the generic
// token kubeconfig reads the token from the file "token" in this directory.
const KubeconfigDir = "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig"

// KubeconfigPath is the kubeconfig the components use for the virtual garden.
const KubeconfigPath = KubeconfigDir + "/kubeconfig"

const kubeconfigVolume = "kubeconfig"

// AccessSecret is the token-requestor Secret through which the component gets a token for its
// ServiceAccount in the virtual garden's kube-system namespace: gardener-operator gives no static
// credentials for the virtual garden and reaches it like a shoot, with a shoot-access-* Secret of
// class shoot that the virtual garden's gardener-resource-manager fills with data.token
// (Gardener's "Gardener Operator" docs/concepts/operator.md, "Gardener Resource Manager"
// docs/concepts/resource-manager.md). The Secret carries no data of its own; the token stays the
// resource manager's field.
func (r Resolved) AccessSecret() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      r.AccessSecretName,
			Namespace: r.Namespace,
			Labels: map[string]string{
				"resources.gardener.cloud/purpose": "token-requestor",
				"resources.gardener.cloud/class":   "shoot",
			},
			Annotations: map[string]string{
				"serviceaccount.resources.gardener.cloud/name":      r.Component,
				"serviceaccount.resources.gardener.cloud/namespace": VirtualSystemNamespace,
			},
		},
		Type: corev1.SecretTypeOpaque,
	}
}

// KubeconfigVolume projects the generic kubeconfig and the component's token into one directory.
func (r Resolved) KubeconfigVolume() corev1.Volume {
	mode := int32(0o640)
	return corev1.Volume{
		Name: kubeconfigVolume,
		VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: &mode,
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.GenericKubeconfigSecretName},
					Items:                []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}},
				}},
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: r.AccessSecretName},
					Items:                []corev1.KeyToPath{{Key: "token", Path: "token"}},
				}},
			},
		}},
	}
}

// KubeconfigMount mounts KubeconfigVolume at KubeconfigDir.
func KubeconfigMount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: kubeconfigVolume, MountPath: KubeconfigDir, ReadOnly: true}
}

// ServiceAccountUser is the virtual garden user name of the component's ServiceAccount.
func (r Resolved) ServiceAccountUser() string {
	return "system:serviceaccount:" + VirtualSystemNamespace + ":" + r.Component
}
