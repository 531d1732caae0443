package machinecontrollermanager

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// ShootRBACName is the ManagedResource with the controller's permissions in the shoot, applied
// by the shoot's gardener-resource-manager (class unset, Gardener's "Conventions"
// docs/extensions/conventions.md).
const ShootRBACName = "shoot-core-" + Name

// seedRules let the controller manage the machine objects of its namespace, the Secrets the
// MachineClasses refer to (Gardener's "Worker" docs/extensions/resources/worker.md), its
// leader-election Lease and events.
func seedRules() []rbacv1.PolicyRule {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"*"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "get", "list", "update", "watch"}},
	}
}

// shootRules are what draining and deleting nodes needs in the shoot: Nodes, evicting Pods, and
// reading the volumes that block a drain.
func shootRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"delete", "get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"persistentvolumes", "persistentvolumeclaims", "replicationcontrollers", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "replicasets", "statefulsets"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"volumeattachments"}, Verbs: []string{"delete", "get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	}
}
