package machinecontrollermanager

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// KubeconfigDir is where a control-plane component finds the shoot's generic token kubeconfig
// and its own token next to it.
const KubeconfigDir = "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig"

// KubeconfigPath is the kubeconfig a component uses for the shoot.
const KubeconfigPath = KubeconfigDir + "/kubeconfig"

// GenericKubeconfigSecretName is the Secret (key kubeconfig) with a shoot's generic token
// kubeconfig, as Gardener names it (Gardener's "Conventions" docs/extensions/conventions.md).
const GenericKubeconfigSecretName = "generic-token-kubeconfig"

// AccessSecretName is the token-requestor Secret of a component, as Gardener names shoot access
// Secrets (shoot-access-<component>).
func AccessSecretName(component string) string { return "shoot-access-" + component }

// ShootAccess is how a component in a shoot's control plane reaches the shoot's API server:
// the shoot's generic token kubeconfig, and a token for the component's ServiceAccount in the
// shoot's kube-system namespace, which the shoot's gardener-resource-manager requests into a
// token-requestor Secret (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md,
// "Conventions" docs/extensions/conventions.md). The cluster autoscaler shares it.
type ShootAccess struct {
	// Namespace is the shoot's control-plane namespace.
	Namespace string
	// Component names the ServiceAccount in the shoot.
	Component string
	// GenericKubeconfigSecretName; "" means GenericKubeconfigSecretName.
	GenericKubeconfigSecretName string
	// AccessSecretName; "" means AccessSecretName(Component).
	AccessSecretName string
}

func (a ShootAccess) resolve() ShootAccess {
	if a.GenericKubeconfigSecretName == "" {
		a.GenericKubeconfigSecretName = GenericKubeconfigSecretName
	}
	if a.AccessSecretName == "" {
		a.AccessSecretName = AccessSecretName(a.Component)
	}
	return a
}

// Secret is the token-requestor Secret of class shoot. It carries no data: the resource manager
// fills in data.token.
func (a ShootAccess) Secret() *corev1.Secret {
	a = a.resolve()
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      a.AccessSecretName,
			Namespace: a.Namespace,
			Labels: map[string]string{
				"resources.gardener.cloud/purpose": "token-requestor",
				"resources.gardener.cloud/class":   "shoot",
			},
			Annotations: map[string]string{
				"serviceaccount.resources.gardener.cloud/name":      a.Component,
				"serviceaccount.resources.gardener.cloud/namespace": metav1.NamespaceSystem,
			},
		},
		Type: corev1.SecretTypeOpaque,
	}
}

// Volume projects the generic kubeconfig and the token into one directory.
func (a ShootAccess) Volume() corev1.Volume {
	a = a.resolve()
	return corev1.Volume{
		Name: "kubeconfig",
		VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(0o640)),
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: a.GenericKubeconfigSecretName},
					Items:                []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}},
				}},
				{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: a.AccessSecretName},
					Items:                []corev1.KeyToPath{{Key: "token", Path: "token"}},
				}},
			},
		}},
	}
}

// Mount mounts Volume at KubeconfigDir.
func (a ShootAccess) Mount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: "kubeconfig", MountPath: KubeconfigDir, ReadOnly: true}
}

// ServiceAccountUser is the shoot user name of the component's ServiceAccount.
func (a ShootAccess) ServiceAccountUser() string {
	return "system:serviceaccount:" + metav1.NamespaceSystem + ":" + a.Component
}
