package gardenercontrolplane

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// common is Common as Attributes decode when only the clusters are set.
func common(t *testing.T, cluster, virtual string) Common {
	t.Helper()
	var c Common
	require.NoError(t, decode.Into(component.DefaultsValue(&schema.Body{Attributes: Attributes("gardener-scheduler")}), &c))
	c.Cluster, c.VirtualCluster = decode.Cluster{Name: cluster}, decode.Cluster{Name: virtual}
	return c
}

func TestResolveDefaults(t *testing.T) {
	r, err := Resolve(common(t, "runtime", "virtual"), "gardener-scheduler")
	require.NoError(t, err)
	assert.Equal(t, "garden", r.Namespace)
	assert.Equal(t, "info", r.LogLevel, "Gardener's GardenerDashboardConfig in docs/api-reference/operator.md")
	assert.Equal(t, "shoot-access-gardener-scheduler", r.AccessSecretName, "Gardener's docs/concepts/operator.md")
	assert.Equal(t, "generic-token-kubeconfig", r.GenericKubeconfigSecretName)
	assert.Equal(t, "system:serviceaccount:kube-system:gardener-scheduler", r.Access().ServiceAccountUser())
}

func TestHelpers(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"pem is encoded", CABundle("-----BEGIN CERTIFICATE-----\n"), "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="},
		{"base64 stays", CABundle("LS0t"), "LS0t"},
		{"role", Role("gardener-admission-controller"), "admission-controller"},
		{"cluster role", ClusterRoleName("gardener-controller-manager"), "gardener.cloud:system:controller-manager"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
}

func TestComponentConfigChecksumIsStable(t *testing.T) {
	r, err := Resolve(common(t, "a", "b"), "gardener-scheduler")
	require.NoError(t, err)
	_, one, err := r.ComponentConfig(map[string]any{"b": 1, "a": map[string]any{"y": 2, "x": 3}})
	require.NoError(t, err)
	_, two, err := r.ComponentConfig(map[string]any{"a": map[string]any{"x": 3, "y": 2}, "b": 1})
	require.NoError(t, err)
	assert.Equal(t, one, two)
}
