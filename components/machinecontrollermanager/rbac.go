package machinecontrollermanager

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/engine/render"
)

// The names of the controller's RBAC (pkg/component/nodemanagement/machinecontrollermanager in
// gardener/gardener v1.120.0).
const (
	// ShootRBACName is the ManagedResource with the controller's permissions in the shoot.
	ShootRBACName = "shoot-core-" + Name
	// SeedClusterRoleName is the seed-wide ClusterRole every shoot's controller is bound to.
	SeedClusterRoleName = "system:machine-controller-manager-runtime"
	// SeedBootstrapName is the seed's ManagedResource (class seed, garden namespace) with
	// SeedClusterRoleName.
	SeedBootstrapName = Name
)

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// SeedBootstrap is the ManagedResource with the seed-wide ClusterRole the shoots'
// machine-controller-managers are bound to: the machine objects and their status, the Secrets,
// ConfigMaps, Endpoints, Events and Pods of their namespaces, and the two leader-election Leases
// by name (bootstrap.go in pkg/component/nodemanagement/machinecontrollermanager, gardener/gardener
// v1.120.0). The seed deploys it into its garden namespace.
func SeedBootstrap(cluster, namespace string) ([]render.Object, error) {
	verbs := []string{"create", "get", "list", "patch", "update", "watch", "delete", "deletecollection"}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SeedClusterRoleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{
				"machineclasses", "machineclasses/status", "machinedeployments", "machinedeployments/status",
				"machines", "machines/status", "machinesets", "machinesets/status",
			}, Verbs: verbs},
			{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets", "endpoints", "events", "pods"}, Verbs: verbs},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "watch", "update"},
				ResourceNames: []string{"machine-controller", "machine-controller-manager"}},
		},
	}
	return SeedBootstrapObjects(cluster, namespace, SeedBootstrapName, role)
}

// shootObjects are what draining and deleting nodes needs in the shoot, bound to the controller's
// ServiceAccount kube-system/machine-controller-manager, and the kube-system Secrets of the
// bootstrap tokens (computeShootResourcesData in machine_controller_manager.go, gardener/gardener
// v1.120.0).
func shootObjects() []runtime.Object {
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}
	return TargetRBAC(Name, subject, subject,
		[]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status", "endpoints", "replicationcontrollers", "pods", "persistentvolumes", "persistentvolumeclaims"}, Verbs: allVerbs},
			{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
			{APIGroups: []string{"apps"}, Resources: []string{"replicasets", "statefulsets", "daemonsets", "deployments"}, Verbs: allVerbs},
			{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: allVerbs},
			{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"volumeattachments"}, Verbs: []string{"delete", "get", "list", "watch"}},
		},
		[]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "delete", "get", "list"}},
		},
	)
}
