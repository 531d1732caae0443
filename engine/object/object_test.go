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

func TestSortGroupKinds(t *testing.T) {
	kinds := []schema.GroupKind{{Group: "apps", Kind: "Deployment"}, {Kind: "Secret"}, {Kind: "ConfigMap"}}
	SortGroupKinds(kinds)
	assert.Equal(t, []schema.GroupKind{{Kind: "ConfigMap"}, {Kind: "Secret"}, {Group: "apps", Kind: "Deployment"}}, kinds)
}
