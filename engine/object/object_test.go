package object

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRefString(t *testing.T) {
	assert.Equal(t, "Deployment.apps garden/etcd-druid", Ref{Group: "apps", Kind: "Deployment", Namespace: "garden", Name: "etcd-druid"}.String())
	assert.Equal(t, "Namespace garden", Ref{Kind: "Namespace", Name: "garden"}.String())
}

func TestApplyRankOrdersKindsForApply(t *testing.T) {
	order := []schema.GroupKind{
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
		{Kind: "Namespace"},
		{Kind: "ServiceAccount"},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
		{Kind: "ConfigMap"},
		{Kind: "Service"},
		{Group: "apps", Kind: "Deployment"},
		{Group: "druid.gardener.cloud", Kind: "Etcd"},
		{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"},
	}
	for i := 1; i < len(order); i++ {
		assert.Less(t, ApplyRank(order[i-1]), ApplyRank(order[i]), "%s before %s", order[i-1], order[i])
	}
}

func TestProtected(t *testing.T) {
	assert.True(t, Protected(Ref{Group: "druid.gardener.cloud", Kind: "Etcd", Namespace: "garden", Name: "etcd-main"}))
	assert.True(t, Protected(Ref{Kind: "Namespace", Name: "shoot--dev--a"}))
	assert.True(t, Protected(Ref{Kind: "Namespace", Name: "garden"}))
	assert.True(t, Protected(Ref{Kind: "Namespace", Name: "garden-dev"}), "a project namespace")
	assert.True(t, Protected(Ref{Group: "core.gardener.cloud", Kind: "Project", Name: "dev"}))
	assert.False(t, Protected(Ref{Kind: "Namespace", Name: "apps"}))
	assert.False(t, Protected(Ref{Kind: "ConfigMap", Namespace: "garden", Name: "x"}))
}

func TestSortGroupKinds(t *testing.T) {
	kinds := []schema.GroupKind{{Group: "apps", Kind: "Deployment"}, {Kind: "Secret"}, {Kind: "ConfigMap"}}
	SortGroupKinds(kinds)
	assert.Equal(t, []schema.GroupKind{{Kind: "ConfigMap"}, {Kind: "Secret"}, {Group: "apps", Kind: "Deployment"}}, kinds)
}
