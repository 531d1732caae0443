package garden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/engine/render"
)

// gardener-operator runs the NetworkPolicy controller in the runtime cluster, so the garden
// renders its policies in the namespaces it creates there, with the runtime cluster's networks.
func TestGardenNetworkPolicies(t *testing.T) {
	v := values(func(v *Values) {
		v.RuntimeCluster.Networking.Pods, v.RuntimeCluster.Networking.Services = "10.1.0.0/16", "10.2.0.0/16"
		v.RuntimeCluster.Networking.BlockCIDRs = []string{"169.254.169.254/32"}
	})
	in := render.Input{Name: "local", List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		if ref.Cluster != "runtime" || ref.Resource != "endpointslices" {
			return nil, nil
		}
		return []unstructured.Unstructured{{Object: map[string]any{
			"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata":  map[string]any{"name": "kubernetes", "namespace": "default"},
			"endpoints": []any{map[string]any{"addresses": []any{"10.0.0.30"}}},
			"ports":     []any{map[string]any{"port": int64(6443), "protocol": "TCP"}},
		}}}, nil
	}}
	out, err := Type.Render(in, v)
	require.NoError(t, err)
	var np *render.Component
	for i := range out.Components {
		if out.Components[i].Name == networkpolicies.PartName {
			np = &out.Components[i]
		}
	}
	require.NotNil(t, np, "the garden renders the part network_policies")
	assert.Contains(t, np.DependsOn, "garden_namespace")
	byNamespace := map[string][]string{}
	for _, o := range np.Objects {
		assert.Equal(t, "runtime", o.Cluster, "gardener-operator's controller acts on the runtime cluster only")
		byNamespace[o.Object.GetNamespace()] = append(byNamespace[o.Object.GetNamespace()], o.Object.GetName())
		switch o.Object.GetNamespace() + "/" + o.Object.GetName() {
		case "garden/allow-to-runtime-apiserver":
			to, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "egress")
			assert.Equal(t, []any{map[string]any{
				"to":    []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.30/32"}}},
				"ports": []any{map[string]any{"protocol": "TCP", "port": int64(6443)}},
			}}, to)
		case "garden/allow-to-private-networks":
			rules, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "egress")
			except, _, _ := unstructured.NestedStringSlice(rules[0].(map[string]any)["to"].([]any)[0].(map[string]any), "ipBlock", "except")
			assert.Equal(t, []string{"10.1.0.0/16", "10.2.0.0/16"}, except,
				"the runtime cluster's networks, IPv4 single-stack as gardener-operator runs the controller")
		}
	}
	assert.Equal(t, []string{"deny-all", "allow-to-runtime-apiserver", "allow-to-public-networks", "allow-to-private-networks",
		"allow-to-blocked-cidrs", "allow-to-dns"}, byNamespace["garden"])
}
