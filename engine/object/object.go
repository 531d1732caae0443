// Package object names Kubernetes objects the way the engine tracks them: by group, kind,
// namespace and name, independent of the API version they were written in, so that an object
// rendered as apps/v1 and listed as apps/v1beta2 is the same object.
package object

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Ref identifies one object. Namespace is empty for cluster-scoped objects.
type Ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RefOf returns the reference of an object.
func RefOf(u *unstructured.Unstructured) Ref {
	gvk := u.GroupVersionKind()
	return Ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// GroupKind is the reference's group and kind.
func (r Ref) GroupKind() schema.GroupKind { return schema.GroupKind{Group: r.Group, Kind: r.Kind} }

// String renders the reference as "Kind.group namespace/name" ("Deployment.apps garden/etcd-druid",
// "Namespace garden"), the form plans and errors print.
func (r Ref) String() string {
	var b strings.Builder
	b.WriteString(r.Kind)
	if r.Group != "" {
		b.WriteString(".")
		b.WriteString(r.Group)
	}
	b.WriteString(" ")
	if r.Namespace != "" {
		b.WriteString(r.Namespace)
		b.WriteString("/")
	}
	b.WriteString(r.Name)
	return b.String()
}

// Less orders references by group, kind, namespace and name: the order plans list objects in
// when no other order applies.
func (r Ref) Less(o Ref) bool {
	if r.Group != o.Group {
		return r.Group < o.Group
	}
	if r.Kind != o.Kind {
		return r.Kind < o.Kind
	}
	if r.Namespace != o.Namespace {
		return r.Namespace < o.Namespace
	}
	return r.Name < o.Name
}

// GroupKindString renders a GroupKind as "Kind.group", or "Kind" for the core group.
func GroupKindString(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return fmt.Sprintf("%s.%s", gk.Kind, gk.Group)
}

// kindRanks orders kinds the way they must be applied: definitions and namespaces before what
// lives in them, identities and permissions before the workloads that use them, configuration
// before its consumers, workloads before the webhooks that could otherwise block them. Deletion
// runs in the opposite order. Kinds not listed (custom resources included) come between
// workloads and webhooks.
var kindRanks = map[schema.GroupKind]int{
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: 0,
	{Kind: "Namespace"}: 1,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:              2,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                  2,
	{Kind: "ResourceQuota"}:                                          3,
	{Kind: "LimitRange"}:                                             3,
	{Kind: "ServiceAccount"}:                                         4,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        5,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               5,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: 6,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        6,
	{Kind: "Secret"}:                                                                7,
	{Kind: "ConfigMap"}:                                                             7,
	{Kind: "PersistentVolumeClaim"}:                                                 8,
	{Kind: "Service"}:                                                               9,
	{Group: "apps", Kind: "Deployment"}:                                             10,
	{Group: "apps", Kind: "StatefulSet"}:                                            10,
	{Group: "apps", Kind: "DaemonSet"}:                                              10,
	{Group: "batch", Kind: "Job"}:                                                   10,
	{Group: "batch", Kind: "CronJob"}:                                               10,
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                  11,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                         11,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                           13,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   14,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: 14,
}

// otherKindsRank is the rank of kinds kindRanks does not list.
const otherKindsRank = 12

// ApplyRank is the position of a kind in apply order; lower goes first.
func ApplyRank(gk schema.GroupKind) int {
	if r, ok := kindRanks[gk]; ok {
		return r
	}
	return otherKindsRank
}

// protectedKinds are deleted or replaced only with --allow-destroy: losing them loses data or
// whole control planes (design section 5).
var protectedKinds = map[schema.GroupKind]bool{
	{Group: "druid.gardener.cloud", Kind: "Etcd"}:                     true,
	{Kind: "PersistentVolumeClaim"}:                                   true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: true,
	{Group: "core.gardener.cloud", Kind: "BackupBucket"}:              true,
	{Group: "core.gardener.cloud", Kind: "BackupEntry"}:               true,
	{Group: "extensions.gardener.cloud", Kind: "BackupBucket"}:        true,
	{Group: "extensions.gardener.cloud", Kind: "BackupEntry"}:         true,
	// A Project's deletion deletes its namespace with every binding and Secret in it.
	{Group: "core.gardener.cloud", Kind: "Project"}: true,
}

// Protected reports whether deleting or replacing an object needs --allow-destroy: a protected
// kind, a control-plane namespace (shoot--*, garden) or a project namespace (garden-*,
// Gardener's "APIServer Admission Plugins" docs/concepts/apiserver-admission-plugins.md), which
// holds the project's credentials.
func Protected(r Ref) bool {
	if protectedKinds[r.GroupKind()] {
		return true
	}
	return r.Group == "" && r.Kind == "Namespace" && (strings.HasPrefix(r.Name, "shoot--") || r.Name == "garden" || strings.HasPrefix(r.Name, "garden-"))
}

// SortGroupKinds sorts kinds by group, then kind: the order in which kinds are listed and
// recorded, so that requests and files are the same on every run.
func SortGroupKinds(kinds []schema.GroupKind) {
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].Group != kinds[j].Group {
			return kinds[i].Group < kinds[j].Group
		}
		return kinds[i].Kind < kinds[j].Kind
	})
}
