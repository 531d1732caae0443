package kubecontrollermanager

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The controller manager's rights in the shoot (reconcileShootResources in
// pkg/component/kubernetes/controllermanager/shoot_resources.go at gardener/gardener v1.120.0).
const (
	// ShootManagedResourceName carries the ClusterRoleBinding into the shoot; its objects stay when
	// it is deleted.
	ShootManagedResourceName = "shoot-core-kube-controller-manager"
	// ShootClusterRoleBindingName binds the controller manager's ServiceAccount
	// kube-system/kube-controller-manager, whose token it uses, to Kubernetes' role of the
	// controller manager.
	ShootClusterRoleBindingName = "gardener.cloud:target:kube-controller-manager"
	shootClusterRole            = "system:kube-controller-manager"
	serviceAccountName          = "kube-controller-manager"
)

// shootManagedResource is the ManagedResource with the ClusterRoleBinding that gives the shoot's
// controller manager its identity's rights, which the shoot's gardener-resource-manager applies.
func shootManagedResource(v Values) ([]render.Object, error) {
	crb, err := kube.ToUnstructured(&rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ShootClusterRoleBindingName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: shootClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccountName, Namespace: metav1.NamespaceSystem}},
	})
	if err != nil {
		return nil, err
	}
	objs, err := managedresource.Pack(managedresource.ForShoot(v.Cluster.Name, v.Namespace, ShootManagedResourceName, true, []*unstructured.Unstructured{crb}))
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager shoot resources: %w", err)
	}
	return objs, nil
}
