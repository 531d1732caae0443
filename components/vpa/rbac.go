package vpa

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Verb sets used by the rules below.
var (
	read      = []string{"get", "list", "watch"}
	readWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	emit      = []string{"create", "patch", "update"}
)

// targetReader lets a component resolve a VPA's targetRef to the pods it selects: the scale
// subresource of any kind and the well-known workload kinds that own pods.
var targetReader = []rbacv1.PolicyRule{
	{APIGroups: []string{"*"}, Resources: []string{"*/scale"}, Verbs: []string{"get", "watch"}},
	{APIGroups: []string{""}, Resources: []string{"replicationcontrollers"}, Verbs: read},
	{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "deployments", "replicasets", "statefulsets"}, Verbs: read},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: read},
}

// clusterRules are the cluster-wide permissions of each component, after upstream VPA's RBAC:
// the recommender reads pods, nodes and metrics and writes VPA status and checkpoints; the
// updater evicts pods; the admission controller reads VPAs and pods and keeps its status lease.
// The catalog registers the webhook configuration itself (--register-webhook=false), so the
// admission controller only reads it.
func clusterRules(component string) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	switch component {
	case Recommender:
		rules = []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "nodes", "limitranges", "namespaces"}, Verbs: read},
			{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: []string{"get", "list", "watch", "patch"}},
			{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers/status"}, Verbs: []string{"get", "patch", "update"}},
			{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalercheckpoints"}, Verbs: readWrite},
		}
	case Updater:
		rules = []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "nodes", "limitranges"}, Verbs: read},
			{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"pods/resize"}, Verbs: []string{"patch"}},
			{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: read},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: read},
		}
	case AdmissionController:
		rules = []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "configmaps", "nodes", "limitranges"}, Verbs: read},
			{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: read},
			{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, Verbs: read},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update"}},
		}
	}
	rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: emit})
	return append(rules, targetReader...)
}

// clusterRoleName is the name of a component's ClusterRole and ClusterRoleBinding, in
// Gardener's gardener.cloud: naming scheme.
func clusterRoleName(component string) string { return "gardener.cloud:vpa:" + component }

// leaderElectionRoleName names the Role a component takes its leader lease with.
func leaderElectionRoleName(component string) string { return component + "-leader-election" }

// leaderElected are the components that run leader election (only one replica acts); the
// admission controller serves every request from every replica.
var leaderElected = []string{Recommender, Updater}

// components lists the three components in the order their objects are rendered.
var components = []string{AdmissionController, Recommender, Updater}

// rbac renders the ServiceAccounts, ClusterRoles and bindings of all three components and the
// leader-election Roles in the namespace.
func rbac(namespace string) []runtime.Object {
	var out []runtime.Object
	for _, c := range components {
		out = append(out, &corev1.ServiceAccount{ObjectMeta: meta(c, namespace)})
	}
	for _, c := range components {
		out = append(out,
			&rbacv1.ClusterRole{ObjectMeta: meta(clusterRoleName(c), ""), Rules: clusterRules(c)},
			&rbacv1.ClusterRoleBinding{
				ObjectMeta: meta(clusterRoleName(c), ""),
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRoleName(c)},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c, Namespace: namespace}},
			})
	}
	for _, c := range leaderElected {
		name := leaderElectionRoleName(c)
		out = append(out,
			&rbacv1.Role{
				ObjectMeta: meta(name, namespace),
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: readWrite},
				},
			},
			&rbacv1.RoleBinding{
				ObjectMeta: meta(name, namespace),
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c, Namespace: namespace}},
			})
	}
	return out
}

// meta is the metadata of one object of the component; namespace is empty for cluster-scoped
// objects.
func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/part-of": "vpa"}}
}
