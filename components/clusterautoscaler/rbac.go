package clusterautoscaler

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The names of the autoscaler's RBAC (pkg/component/autoscaling/clusterautoscaler in
// gardener/gardener v1.120.0).
const (
	// ShootRBACName is the ManagedResource with the autoscaler's objects in the shoot.
	ShootRBACName = "shoot-core-" + Name
	// SeedClusterRoleName is the seed-wide ClusterRole every shoot's autoscaler is bound to.
	SeedClusterRoleName = "system:cluster-autoscaler-seed"
	// SeedBootstrapName is the seed's ManagedResource (class seed, garden namespace) with
	// SeedClusterRoleName.
	SeedBootstrapName = Name
	// statusConfigMap is the ConfigMap in the shoot's kube-system the autoscaler reports to.
	statusConfigMap = "cluster-autoscaler-status"
)

var read = []string{"watch", "list", "get"}

// SeedBootstrap is the ManagedResource with the seed-wide ClusterRole the shoots' autoscalers are
// bound to: the machine objects, and reading Deployments (bootstrap.go in
// pkg/component/autoscaling/clusterautoscaler, gardener/gardener v1.120.0). The seed deploys it
// into its garden namespace.
func SeedBootstrap(cluster, namespace string) ([]render.Object, error) {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SeedClusterRoleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machineclasses", "machinedeployments", "machines", "machinesets"},
				Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	return machinecontrollermanager.SeedBootstrapObjects(cluster, namespace, SeedBootstrapName, role)
}

// shootRBAC are what simulating scheduling and draining nodes needs in the shoot, bound to the
// autoscaler's ServiceAccount kube-system/cluster-autoscaler, and its status ConfigMap in
// kube-system (computeShootResourcesData in cluster_autoscaler.go, gardener/gardener v1.120.0;
// the RoleBinding's subject names no namespace there, which means the Role's).
func shootRBAC() []runtime.Object {
	return machinecontrollermanager.TargetRBAC(Name,
		rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem},
		rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: Name},
		[]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"events", "endpoints"}, Verbs: []string{"create", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"update"}},
			{APIGroups: []string{""}, Resources: []string{"endpoints"}, ResourceNames: []string{Name}, Verbs: []string{"get", "update"}},
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"watch", "list", "get", "update"}},
			{APIGroups: []string{""}, Resources: []string{"namespaces", "pods", "services", "replicationcontrollers", "persistentvolumeclaims", "persistentvolumes"}, Verbs: read},
			{APIGroups: []string{"apps", "extensions"}, Resources: []string{"daemonsets", "replicasets", "statefulsets"}, Verbs: read},
			{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"watch", "list"}},
			{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "csinodes", "csidrivers", "csistoragecapacities"}, Verbs: read},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{Name}, Verbs: []string{"get", "update"}},
			{APIGroups: []string{"batch", "extensions"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "patch", "watch"}},
			{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: []string{"get", "list", "watch"}},
		},
		[]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"watch", "list", "get", "create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{statusConfigMap}, Verbs: []string{"delete", "update"}},
		},
	)
}
