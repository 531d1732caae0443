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

func TestRefHidden(t *testing.T) {
	ref := Ref{Kind: "ConfigMap", Namespace: "team-s3cret", Name: "s3cret"}
	for _, tt := range []struct {
		which string
		want  Ref
	}{
		{"", ref},
		{"name", Ref{Kind: "ConfigMap", Namespace: "team-s3cret", Name: HiddenValue}},
		{"namespace", Ref{Kind: "ConfigMap", Namespace: HiddenValue, Name: "s3cret"}},
		{"name,namespace", Ref{Kind: "ConfigMap", Namespace: HiddenValue, Name: HiddenValue}},
		{"other", ref},
	} {
		assert.Equal(t, tt.want, ref.Hidden(tt.which), tt.which)
	}
}
