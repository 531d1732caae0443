// Package shootaccess is how a component reaches a cluster that Gardener's resource manager
// serves tokens for, a shoot or the virtual garden (which gardener-operator reaches like a shoot,
// Gardener's "Gardener Operator" docs/concepts/operator.md): the cluster's generic token kubeconfig
// and a token for the component's ServiceAccount in its kube-system namespace, which the
// cluster's gardener-resource-manager requests into a token-requestor Secret (Gardener's
// "Gardener Resource Manager" docs/concepts/resource-manager.md, "Conventions"
// docs/extensions/conventions.md).
package shootaccess

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// KubeconfigDir is where a component finds the cluster's generic token kubeconfig and its own
// token next to it.
const KubeconfigDir = "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig"

// KubeconfigPath is the kubeconfig a component uses for the cluster.
const KubeconfigPath = KubeconfigDir + "/kubeconfig"

// GenericKubeconfigSecretName is the Secret (key kubeconfig) with a shoot's generic token
// kubeconfig, as Gardener names it (Gardener's "Conventions" docs/extensions/conventions.md).
const GenericKubeconfigSecretName = "generic-token-kubeconfig"

// SecretName is the token-requestor Secret of a component, as Gardener names shoot access
// Secrets (shoot-access-<component>).
func SecretName(component string) string { return "shoot-access-" + component }

// Access is one component's access to the cluster.
type Access struct {
	// Namespace is the namespace of the component's Secrets, next to it: a shoot's control-plane
	// namespace, the garden runtime cluster's garden namespace.
	Namespace string
	// Component names the ServiceAccount in the cluster.
	Component string
	// GenericKubeconfigSecretName; "" means GenericKubeconfigSecretName.
	GenericKubeconfigSecretName string
	// AccessSecretName; "" means SecretName(Component).
	AccessSecretName string
}

func (a Access) resolve() Access {
	if a.GenericKubeconfigSecretName == "" {
		a.GenericKubeconfigSecretName = GenericKubeconfigSecretName
	}
	if a.AccessSecretName == "" {
		a.AccessSecretName = SecretName(a.Component)
	}
	return a
}

// Secret is the token-requestor Secret of class shoot. It carries no data: the resource manager
// fills in data.token.
func (a Access) Secret() *corev1.Secret {
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

// KubeconfigSecret is Secret with a kubeconfig of its own for the cluster (key kubeconfig), for a
// component that mounts the Secret rather than the generic kubeconfig: the resource manager writes
// the token into the kubeconfig as well (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md).
func (a Access) KubeconfigSecret(kubeconfig string) *corev1.Secret {
	s := a.Secret()
	s.StringData = map[string]string{"kubeconfig": kubeconfig}
	return s
}

// Volume projects the generic kubeconfig and the token into one directory.
func (a Access) Volume() corev1.Volume {
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
func (a Access) Mount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: "kubeconfig", MountPath: KubeconfigDir, ReadOnly: true}
}

// ServiceAccountUser is the cluster's user name of the component's ServiceAccount.
func (a Access) ServiceAccountUser() string {
	return "system:serviceaccount:" + metav1.NamespaceSystem + ":" + a.Component
}
