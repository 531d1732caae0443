package networkpolicies

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// TypeName is the component type, and the name of the part a composite renders it as.
const TypeName = "network_policies"

// typeSchema is the component type for the NetworkPolicies Gardener's NetworkPolicy controller
// keeps in the namespaces of a seed or of the garden runtime cluster, for namespaces a landscape
// declares itself; the seed and garden blocks render them for their own namespaces.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: TypeName,
		Description: "The NetworkPolicies gardenlet's and gardener-operator's NetworkPolicy controller keeps in the namespaces of a seed or of the garden runtime cluster " +
			"(deny-all, allow-to-runtime-apiserver, allow-to-public-networks, allow-to-private-networks, allow-to-blocked-cidrs, allow-to-dns), each in the namespaces whose labels it selects " +
			"(the garden namespace, gardener.cloud/role shoot, extension, istio-system or istio-ingress, an ExposureClass handler's namespace). " +
			"The seed and garden blocks render them for the namespaces they create; declare this component for namespaces the landscape creates itself. " +
			"allow-to-runtime-apiserver opens the addresses of the cluster's `kubernetes` EndpointSlice as the plan reads it.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The cluster the namespaces are in."),
			},
			Blocks: []schema.Block{
				{
					Name: "networks", Required: true,
					Description: "The cluster's networks, as the seed's networks block or the garden's runtime_cluster networking block gives them.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "pods", Type: cty.String, Required: true, Checks: attr.Checks(schema.CIDR()), Description: "The cluster's pod network."},
						{Name: "services", Type: cty.String, Required: true, Checks: attr.Checks(schema.CIDR()), Description: "The cluster's service network; its tenth address is the cluster DNS Service's."},
						{Name: "nodes", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "The cluster's node network, if it has a dedicated one."},
						{Name: "block_cidrs", Type: attr.StringList, Checks: attr.Checks(schema.CIDRList()), Description: "Networks that only pods labelled networking.gardener.cloud/to-blocked-cidrs=allowed may reach."},
						{
							Name: "ip_families", Type: attr.StringList, Default: attr.ListOf(IPv4), Checks: attr.Checks(schema.NotEmpty(), schema.OneOf(IPv4, IPv6)),
							Description: "The IP families of the cluster's networks; the networks of a single-stack cluster are left out of the public and private networks the policies open.",
						},
					}},
				},
				{
					Name: "namespace", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A namespace of the cluster; it gets the policies whose namespace selectors its labels match, none if there are none.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "labels", Type: cty.Map(cty.String), Description: "The namespace's labels, as the component creating it sets them."},
						},
						Blocks: []schema.Block{{
							Name:        "shoot",
							Description: "For a namespace holding a shoot's control plane (a name starting with shoot-): the shoot's networks, which allow-to-private-networks leaves out.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "cidrs", Type: attr.StringList, Checks: attr.Checks(schema.CIDRList()), Description: "The shoot's node, pod and service networks."},
								{Name: "ip_families", Type: attr.StringList, Default: attr.ListOf(IPv4), Checks: attr.Checks(schema.OneOf(IPv4, IPv6)), Description: "The shoot's IP families."},
							}},
						}},
					},
				},
			},
		},
	}
}
