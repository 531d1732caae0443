package vpnseedserver

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the server end of a shoot's reversed VPN tunnel in its
// control-plane namespace of the seed (Gardener's "Reversed VPN Tunnel"
// docs/development/reversed-vpn-tunnel.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "vpn_seed_server",
		Description: "The vpn-seed-server of a shoot control plane: the VPN server that the shoot's vpn-shoot client dials through the seed's " +
			"Istio ingress gateway, and through which the kube-apiserver reaches the shoot's nodes, Services and Pods. One server with an " +
			"HTTP CONNECT proxy for the kube-apiserver; with high availability two servers, vpn-seed-server-0 and -1, each behind a Service of its own.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The seed the shoot's control plane runs in."),
				{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The shoot's control-plane namespace, shoot--<project>--<shoot>."},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (vpn-server, envoy-proxy) by name: repository:tag, repository@sha256:digest or a bare tag."},
				{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether two VPN servers run instead of one: true for shoots whose control plane has a failure tolerance (node or zone)."},
				{Name: "ip_families", Type: cty.List(cty.String), Description: "The shoot's IP families (IPv4, IPv6); IPv4 when unset."},
				{Name: "seed_pod_network", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "The seed's pod network, which the server keeps out of the routes into the tunnel (SEED_POD_NETWORK)."},
				{Name: "vpn_network", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "Overrides the server's built-in transfer network (VPN_NETWORK), which must overlap neither the shoot's nor the seed's networks; Gardener sets none."},
				attr.SecretName("server_secret_name", Name, "Secret with the server certificate (tls.crt, tls.key) signed by the VPN CA."),
				attr.SecretName("ca_secret_name", "ca-vpn", "Secret with the VPN CA certificate (ca.crt) that client certificates are checked against."),
				attr.SecretName("tls_auth_secret_name", Name+"-tlsauth", "Secret with the OpenVPN TLS auth key (vpn.tlsauth)."),
				{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.System300), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the pods; shoot control planes use gardener-system-300 for the VPN server."},
			},
			Blocks: []schema.Block{{
				Name: "shoot_networks", Required: true,
				Description: "The shoot's networks, which the tunnel routes to.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "pods", Type: cty.String, Required: true, Checks: attr.Checks(schema.CIDR()), Description: "The shoot's pod network."},
					{Name: "services", Type: cty.String, Required: true, Checks: attr.Checks(schema.CIDR()), Description: "The shoot's service network."},
					{Name: "nodes", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "The shoot's node network, if it has one yet."},
				}},
			}},
		},
	}
}
