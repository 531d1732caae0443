package clusterautoscaler

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// ShootRBACName is the ManagedResource with the autoscaler's permissions in the shoot, applied by
// the shoot's gardener-resource-manager (class unset, Gardener's "Conventions"
// docs/extensions/conventions.md).
const ShootRBACName = "shoot-core-" + Name

var read = []string{"get", "list", "watch"}

// seedRules let the autoscaler read the machine objects of its namespace and change the replicas
// of MachineDeployments (Gardener's "Worker" docs/extensions/resources/worker.md) and the machines
// it picks for removal.
func seedRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machineclasses", "machinesets"}, Verbs: read},
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machinedeployments", "machines"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
	}
}

// shootRules are what simulating scheduling and draining nodes needs in the shoot. These are the
// upstream autoscaler's needs; Gardener's documentation lists none.
func shootRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"delete", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces", "pods", "services", "replicationcontrollers", "persistentvolumeclaims", "persistentvolumes", "configmaps"}, Verbs: read},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "replicasets", "statefulsets"}, Verbs: read},
		{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: read},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: read},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"}, Verbs: read},
	}
}

// kubeSystemRules are the autoscaler's leader-election Lease and status ConfigMap in the shoot's
// kube-system.
func kubeSystemRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "get", "list", "patch", "update", "watch"}},
	}
}
