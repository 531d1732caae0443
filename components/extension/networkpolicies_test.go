package extension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// gardenlet's NetworkPolicy controller selects an installation's namespace by its role
// (gardener.cloud/role=extension) and keeps its policies there, with the seed's networks; the
// installation's part renders them with the namespace.
func TestInstallationNetworkPolicies(t *testing.T) {
	config := `{"virtual_cluster": {"name": "virtual"}, "name": "provider-local", "chart": "chart", "garden_cluster_identity": "local",
		"policy": "Always", "resource": [{"kind": "Infrastructure", "type": "local"}],
		"seeds": [{"name": "local", "cluster": {"name": "runtime"}, "provider": "local", "region": "local"}]}`
	liveSeed := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "local"},
		"spec": map[string]any{"networks": map[string]any{"pods": "10.1.0.0/16", "services": "10.2.0.0/16", "blockCIDRs": []any{"10.9.0.0/16"}}}}
	installation := liveInstallationOf("provider-local-9tq4v", "provider-local", "local")
	rendered := func(garden fakeGarden) map[string][]string {
		in := garden.input("test", "testdata")
		in.Config = rendertest.JSONConfigOf(t, Type, config)
		out, err := Type.RenderConfig(in)
		require.NoError(t, err)
		var part *render.Component
		for i := range out.Components {
			if out.Components[i].Name == "installation_local" {
				part = &out.Components[i]
			}
		}
		require.NotNil(t, part)
		got, err := part.Await.Render(in)
		require.NoError(t, err)
		require.NotNil(t, got)
		policies := map[string][]string{}
		for _, o := range got.Objects {
			if o.Object.GetKind() == "NetworkPolicy" {
				assert.Equal(t, "runtime", o.Cluster, "in the seed cluster")
				policies[o.Object.GetNamespace()] = append(policies[o.Object.GetNamespace()], o.Object.GetName())
				if o.Object.GetName() == "allow-to-blocked-cidrs" {
					assert.Equal(t, []any{map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.9.0.0/16"}}}}},
						o.Object.Object["spec"].(map[string]any)["egress"], "the live Seed's blocked CIDRs")
				}
			}
		}
		return policies
	}
	assert.Equal(t, map[string][]string{"extension-provider-local-9tq4v": {"deny-all", "allow-to-runtime-apiserver", "allow-to-public-networks",
		"allow-to-private-networks", "allow-to-blocked-cidrs", "allow-to-dns"}}, rendered(fakeGarden{installation, liveSeed}),
		"the namespace gets every policy of an extension's namespace, from the networks of the live Seed")
	assert.Empty(t, rendered(fakeGarden{installation}), "without the seed's networks no policy can be rendered")
}
