package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
)

func TestApplyRankOrdersKindsForApply(t *testing.T) {
	order := []schema.GroupKind{
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
		{Kind: "Namespace"},
		{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
		{Kind: "ResourceQuota"},
		{Kind: "ServiceAccount"},
		{Group: "rbac.authorization.k8s.io", Kind: "Role"},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
		{Kind: "ConfigMap"},
		{Kind: "PersistentVolumeClaim"},
		{Kind: "Service"},
		{Group: "apps", Kind: "Deployment"},
		{Group: "policy", Kind: "PodDisruptionBudget"},
		{Group: "druid.gardener.cloud", Kind: "Etcd"},
		{Group: "apiregistration.k8s.io", Kind: "APIService"},
		{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"},
	}
	for i := 1; i < len(order); i++ {
		assert.Less(t, ApplyRank(order[i-1]), ApplyRank(order[i]), "%s before %s", order[i-1], order[i])
	}
	assert.Equal(t, ApplyRank(schema.GroupKind{Group: "druid.gardener.cloud", Kind: "Etcd"}), ApplyRank(schema.GroupKind{Group: "example.com", Kind: "Widget"}),
		"a kind with an entry but no phase goes where kinds without an entry go")
	assert.Len(t, applyOrder, int(Webhooks)+1, "every phase has its place in applyOrder")
}

func TestProtected(t *testing.T) {
	tests := []struct {
		ref  object.Ref
		want bool
	}{
		{object.Ref{Group: "druid.gardener.cloud", Kind: "Etcd", Namespace: "garden", Name: "etcd-main"}, true},
		{object.Ref{Kind: "Namespace", Name: "shoot--dev--a"}, true},
		{object.Ref{Kind: "Namespace", Name: "garden"}, true},
		{object.Ref{Kind: "Namespace", Name: "garden-dev"}, true}, // a project namespace
		{object.Ref{Group: "core.gardener.cloud", Kind: "Project", Name: "dev"}, true},
		{object.Ref{Group: "extensions.gardener.cloud", Kind: "BackupEntry", Name: "shoot--dev--a"}, true},
		{object.Ref{Kind: "Namespace", Name: "apps"}, false},
		{object.Ref{Kind: "ConfigMap", Namespace: "garden", Name: "x"}, false},
		{object.Ref{Group: "example.com", Kind: "Widget", Namespace: "garden", Name: "x"}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Protected(tt.ref), tt.ref.String())
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		gk                      schema.GroupKind
		cluster, builtinCluster bool
	}{
		{schema.GroupKind{Kind: "Namespace"}, true, true},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, true, true},
		{schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, true, true},
		{schema.GroupKind{Kind: "ConfigMap"}, false, false},
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, false, false},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "Role"}, false, false},
		// Gardener's kinds are known to the table but not built in.
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "Project"}, true, false},
		{schema.GroupKind{Group: "extensions.gardener.cloud", Kind: "BackupEntry"}, true, false},
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "BackupEntry"}, false, false},
		{schema.GroupKind{Group: "example.com", Kind: "Widget"}, false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.cluster, ClusterScoped(tt.gk), "ClusterScoped %s", tt.gk)
		assert.Equal(t, tt.builtinCluster, BuiltinClusterScoped(tt.gk), "BuiltinClusterScoped %s", tt.gk)
	}
}

func TestReadinessOf(t *testing.T) {
	tests := []struct {
		gk   schema.GroupKind
		want Readiness
	}{
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, DeploymentRollout},
		{schema.GroupKind{Group: "extensions.gardener.cloud", Kind: "Worker"}, ExtensionSucceeded},       // the group's rule
		{schema.GroupKind{Group: "extensions.gardener.cloud", Kind: "SomethingNew"}, ExtensionSucceeded}, // the group's rule, without an entry
		{schema.GroupKind{Group: "extensions.gardener.cloud", Kind: "Cluster"}, ObservedGeneration},      // its own rule
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "CloudProfile"}, ObservedGeneration},       // an entry without a rule
		{schema.GroupKind{Group: "example.com", Kind: "Widget"}, ObservedGeneration},                     // no entry
		{schema.GroupKind{Group: "core.gardener.cloud", Kind: "BackupEntry"}, LastOperationSucceeded},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ReadinessOf(tt.gk), tt.gk.String())
	}
}

func TestLookup(t *testing.T) {
	r, ok := Lookup(schema.GroupKind{Group: "core.gardener.cloud", Kind: "Shoot"})
	assert.True(t, ok)
	assert.True(t, r.ConfirmDeletion)
	assert.Equal(t, &Irreplaceable{Loses: "delete the cluster", Instead: "declare a new shoot"}, r.Irreplaceable)

	r, ok = Lookup(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	assert.False(t, ok)
	assert.Zero(t, r)
	assert.True(t, KnownGroup("monitoring.coreos.com"))
	assert.False(t, KnownGroup("example.com"))
}
