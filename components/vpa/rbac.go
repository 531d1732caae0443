package vpa

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// rbacPrefix starts the names of the RBAC objects of a VPA that acts on its own cluster (the
// "source" cluster, Gardener's cluster type seed).
const rbacPrefix = "gardener.cloud:vpa:source:"

// deleteOnInvalidUpdate lets gardener-resource-manager replace a binding whose roleRef changes.
const deleteOnInvalidUpdate = "resources.gardener.cloud/delete-on-invalid-update"

var read = []string{"get", "list", "watch"}

// clusterRole is one ClusterRole and the components bound to it.
type clusterRole struct {
	name     string
	rules    []rbacv1.PolicyRule
	subjects []string
}

// clusterRoles are Gardener's ClusterRoles of the VPA in its order: the admission controller's
// own, the recommender's metrics reader, checkpoint and status actors, the updater's evictioner,
// the actor shared by recommender and updater, and the target reader all three resolve a VPA's
// targetRef with (druid's Etcds among the targets).
var clusterRoles = []clusterRole{
	{"admission-controller", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "configmaps", "nodes", "limitranges"}, Verbs: read},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, Verbs: []string{"create", "delete", "get", "list"}},
		{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: read},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "update", "get", "list", "watch"}},
	}, []string{AdmissionController}},
	{"metrics-reader", []rbacv1.PolicyRule{
		{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
	}, []string{Recommender}},
	{"checkpoint-actor", []rbacv1.PolicyRule{
		{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalercheckpoints"}, Verbs: []string{"get", "list", "watch", "create", "patch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list"}},
	}, []string{Recommender}},
	{"status-actor", []rbacv1.PolicyRule{
		{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers/status"}, Verbs: []string{"get", "patch"}},
	}, []string{Recommender}},
	{"evictioner", []rbacv1.PolicyRule{
		{APIGroups: []string{"apps", "extensions"}, Resources: []string{"replicasets"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
	}, []string{Updater}},
	{"actor", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "nodes", "limitranges"}, Verbs: read},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "get", "list", "watch", "patch", "update"}},
		{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: read},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: read},
	}, []string{Recommender, Updater}},
	{"target-reader", []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*/scale"}, Verbs: []string{"get", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"replicationcontrollers"}, Verbs: read},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "deployments", "replicasets", "statefulsets"}, Verbs: read},
		{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: read},
		{APIGroups: []string{"druid.gardener.cloud"}, Resources: []string{"etcds", "etcds/scale"}, Verbs: read},
	}, []string{AdmissionController, Recommender, Updater}},
}

// leaderElected are the components that elect a leader through a Lease named after them.
var leaderElected = []string{Recommender, Updater}

// components lists the three components in the order their objects are rendered.
var components = []string{AdmissionController, Recommender, Updater}

// rbac renders the ServiceAccounts (without an automounted token: gardener-resource-manager's
// projected-token-mount webhook mounts one), the ClusterRoles and their bindings, and the
// leader-locking Roles and bindings in the namespace.
func rbac(namespace string) []runtime.Object {
	var out []runtime.Object
	for _, c := range components {
		out = append(out, &corev1.ServiceAccount{ObjectMeta: meta(c, namespace, roleLabel()), AutomountServiceAccountToken: ptr.To(false)})
	}
	for _, r := range clusterRoles {
		var subjects []rbacv1.Subject
		for _, s := range r.subjects {
			subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: s, Namespace: namespace})
		}
		binding := meta(rbacPrefix+r.name, "", roleLabel())
		binding.Annotations = map[string]string{deleteOnInvalidUpdate: "true"}
		out = append(out,
			&rbacv1.ClusterRole{ObjectMeta: meta(rbacPrefix+r.name, "", roleLabel()), Rules: r.rules},
			&rbacv1.ClusterRoleBinding{
				ObjectMeta: binding,
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: rbacPrefix + r.name},
				Subjects:   subjects,
			})
	}
	for _, c := range leaderElected {
		name := rbacPrefix + "leader-locking-" + c
		out = append(out,
			&rbacv1.Role{
				ObjectMeta: meta(name, namespace, roleLabel()),
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
					{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{c}, Verbs: []string{"get", "watch", "update"}},
				},
			},
			&rbacv1.RoleBinding{
				ObjectMeta: meta(name, namespace, roleLabel()),
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c, Namespace: namespace}},
			})
	}
	return out
}

// roleLabel is the label every object of the VPA carries: gardener.cloud/role=vpa.
func roleLabel() map[string]string { return map[string]string{"gardener.cloud/role": "vpa"} }

// meta is the metadata of one object of the component; namespace is empty for cluster-scoped
// objects.
func meta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}
