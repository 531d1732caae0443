package gardenercontrolplane

import (
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

// KubeconfigPath is the kubeconfig the components use for the virtual garden.
const KubeconfigPath = shootaccess.KubeconfigPath

// Access is the component's access to the virtual garden: gardener-operator gives no static
// credentials for the virtual garden and reaches it like a shoot (Gardener's "Gardener Operator"
// docs/concepts/operator.md), with the generic token kubeconfig and a shoot-access-* Secret of class
// shoot that the virtual garden's gardener-resource-manager fills with data.token for the
// component's ServiceAccount in kube-system (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md). The component renders the Secret, which carries no data of
// its own, and mounts the kubeconfig with the token at shootaccess.KubeconfigDir.
func (r Resolved) Access() shootaccess.Access {
	return shootaccess.Access{
		Namespace:                   r.Namespace,
		Component:                   r.Component,
		GenericKubeconfigSecretName: r.GenericKubeconfigSecretName,
		AccessSecretName:            r.AccessSecretName,
	}
}
