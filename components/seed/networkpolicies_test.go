package seed

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/engine/render"
)

// withAPIServer is a seed's render input whose seed cluster has one API server at 10.0.0.20:443
// (its `kubernetes` EndpointSlice); every other list is empty.
func withAPIServer(cluster string) render.Input {
	return render.Input{Name: "seed1", List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		if ref.Cluster != cluster || ref.Resource != "endpointslices" {
			return nil, nil
		}
		return []unstructured.Unstructured{{Object: map[string]any{
			"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata":  map[string]any{"name": "kubernetes", "namespace": "default"},
			"endpoints": []any{map[string]any{"addresses": []any{"10.0.0.20"}}},
			"ports":     []any{map[string]any{"port": int64(443), "protocol": "TCP"}},
		}}}, nil
	}}
}

func renderedParts(t *testing.T, in render.Input, v Values) map[string]render.Component {
	t.Helper()
	out, err := Type.Render(in, v)
	require.NoError(t, err)
	byName := map[string]render.Component{}
	for _, p := range out.Components {
		byName[p.Name] = p
	}
	return byName
}

// policiesByNamespace are the names of the NetworkPolicies of a part by namespace.
func policiesByNamespace(p render.Component) map[string][]string {
	out := map[string][]string{}
	for _, o := range p.Objects {
		if o.Object.GetKind() == "NetworkPolicy" {
			out[o.Object.GetNamespace()] = append(out[o.Object.GetNamespace()], o.Object.GetName())
		}
	}
	return out
}

// The engine is gardenlet of the seeds it manages, so it renders the NetworkPolicies gardenlet's
// NetworkPolicy controller keeps in the seed's namespaces.
func TestSeedNetworkPolicies(t *testing.T) {
	v := values(func(v *Values) { v.Networks.BlockCIDRs = []string{"169.254.169.254/32"} })
	parts := renderedParts(t, withAPIServer("seed1"), v)
	np, ok := parts[networkpolicies.PartName]
	require.True(t, ok, "the seed renders the part network_policies")
	assert.Equal(t, networkpolicies.TypeName, np.Type)
	assert.Contains(t, np.DependsOn, "garden_namespace", "the policies come after the namespaces they go into")

	byNamespace := policiesByNamespace(np)
	assert.Equal(t, []string{"deny-all", "allow-to-runtime-apiserver", "allow-to-public-networks", "allow-to-private-networks",
		"allow-to-blocked-cidrs", "allow-to-dns"}, byNamespace["garden"])
	// Every namespace the seed creates that the controller's selectors match gets deny-all, and
	// the policies follow the labels the parts give their namespaces.
	for name, p := range parts {
		for _, o := range p.Objects {
			if o.Object.GetKind() != "Namespace" || o.Cluster != "seed1" {
				continue
			}
			labels := map[string]string{networkpolicies.LabelNamespaceName: o.Object.GetName()}
			for k, val := range o.Object.GetLabels() {
				labels[k] = val
			}
			assert.Equal(t, networkpolicies.Selected(labels), slices.Contains(byNamespace[o.Object.GetName()], "deny-all"),
				"namespace %s of part %s", o.Object.GetName(), name)
		}
	}

	policy := func(ns, name string) map[string]any {
		for _, o := range np.Objects {
			if o.Object.GetNamespace() == ns && o.Object.GetName() == name {
				return o.Object.Object
			}
		}
		require.Failf(t, "policy missing", "%s/%s", ns, name)
		return nil
	}
	apiserver, _, _ := unstructured.NestedSlice(policy("garden", "allow-to-runtime-apiserver"), "spec", "egress")
	assert.Equal(t, []any{map[string]any{
		"to":    []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.20/32"}}},
		"ports": []any{map[string]any{"protocol": "TCP", "port": int64(443)}},
	}}, apiserver, "the seed cluster's API server endpoints")
	private, _, _ := unstructured.NestedSlice(policy("garden", "allow-to-private-networks"), "spec", "egress")
	except, _, _ := unstructured.NestedStringSlice(private[0].(map[string]any)["to"].([]any)[0].(map[string]any), "ipBlock", "except")
	assert.Equal(t, []string{"10.1.0.0/16", "10.2.0.0/16", "10.0.0.0/16"}, except, "the seed's pod, service and node networks")
	public, _, _ := unstructured.NestedSlice(policy("garden", "allow-to-public-networks"), "spec", "egress")
	except, _, _ = unstructured.NestedStringSlice(public[0].(map[string]any)["to"].([]any)[0].(map[string]any), "ipBlock", "except")
	assert.Contains(t, except, "169.254.169.254/32", "the seed's blocked CIDRs")
	dns, _, _ := unstructured.NestedSlice(policy("garden", "allow-to-dns"), "spec", "egress")
	assert.Contains(t, dns[0].(map[string]any)["to"], map[string]any{"ipBlock": map[string]any{"cidr": "10.2.0.10/32"}},
		"the seed's cluster DNS address")
}

// Where the seed is the garden runtime cluster, the garden's part creates the garden namespace
// and renders its policies; the seed renders none there.
func TestSeedNetworkPoliciesInTheRuntimeCluster(t *testing.T) {
	parts := renderedParts(t, withAPIServer("runtime"), values(func(v *Values) { v.Cluster.Name = "runtime" }))
	for _, o := range parts[networkpolicies.PartName].Objects {
		assert.NotEqual(t, "garden", o.Object.GetNamespace(), "the garden renders the policies of its namespace")
	}
}

// A seed handed to gardenlet has gardenlet's controller keep the policies: the engine renders
// none and releases those it rendered to gardenlet.
func TestSeedNetworkPoliciesHandedToGardenlet(t *testing.T) {
	v := values(func(v *Values) { v.ManagedBy = ManagedByGardenlet })
	out, err := Type.Render(withAPIServer("seed1"), v)
	require.NoError(t, err)
	for _, p := range out.Components {
		assert.NotEqual(t, networkpolicies.PartName, p.Name)
	}
	handedOver := rendertest.HandedOver(out)
	assert.Equal(t, "gardenlet", handedOver["seed1 NetworkPolicy garden/^deny-all$"])
	assert.Equal(t, "gardenlet", handedOver["seed1 NetworkPolicy garden/^allow-to-dns$"])
}

// The seed's outputs carry the networks its shoots' control-plane namespaces get their policies
// with: the blocked CIDRs, and the IP families the controller runs with (the Seed API's IPv4
// default; IPv4 where gardener-operator runs the controller in the garden runtime cluster).
func TestSeedOutputsThePolicyNetworks(t *testing.T) {
	list := func(v cty.Value) []string {
		var out []string
		for _, e := range v.AsValueSlice() {
			out = append(out, e.AsString())
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		mutate   func(*Values)
		blocked  []string
		families []string
	}{
		{"defaults", nil, nil, []string{"IPv4"}},
		{"blocked and dual-stack", func(v *Values) {
			v.Networks.BlockCIDRs = []string{"169.254.169.254/32"}
			v.Networks.IPFamilies = []string{"IPv4", "IPv6"}
		}, []string{"169.254.169.254/32"}, []string{"IPv4", "IPv6"}},
		{"in the garden runtime cluster", func(v *Values) {
			v.Networks.IPFamilies = []string{"IPv6"}
			v.Garden.RuntimeCluster = v.Cluster.Name
		}, nil, []string{"IPv4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			networks := Outputs("seed1", values(tc.mutate))["networks"]
			assert.Equal(t, tc.blocked, list(networks.GetAttr("block_cidrs")))
			assert.Equal(t, tc.families, list(networks.GetAttr("ip_families")))
		})
	}
}
