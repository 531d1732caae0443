package object

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestBuiltinClusterScoped(t *testing.T) {
	for gk, want := range map[schema.GroupKind]bool{
		{Kind: "Namespace"}: true,
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:         true,
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: true,
		{Kind: "ConfigMap"}:                                false,
		{Group: "apps", Kind: "Deployment"}:                false,
		{Group: "rbac.authorization.k8s.io", Kind: "Role"}: false,
		{Group: "core.gardener.cloud", Kind: "Project"}:    false, // custom kinds are not covered
	} {
		assert.Equal(t, want, BuiltinClusterScoped(gk), gk.String())
	}
}
