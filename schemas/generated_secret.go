package schemas

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// generatedSecret is a secret the engine generates (CAs, certificates, keys, tokens, passwords),
// stores in the target cluster and reuses on every later plan, renewing certificates at 80% of
// their validity as Gardener does.
func generatedSecret() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "generated_secret",
		Description: "A secret gardener generates and keeps in the target cluster: a CA, a server or client certificate signed by one, " +
			"an RSA key, a token, a password, an API server's encryption configuration with its AES key, or the OpenVPN static key of a shoot's VPN (tls-auth). " +
			"Later plans reuse it, so it never churns; certificates are renewed once 80% of their validity has passed, " +
			"everything is regenerated when its configuration changes or on " +
			"`gardener apply --rotate CLASS` (an encryption configuration keeps its keys and puts a new one first). " +
			"Its value is never shown.",
		Body: schema.Body{Attributes: []schema.Attribute{
			reference("cluster", schema.RefCluster, "The cluster the Secret is stored in."),
			{Name: "namespace", Type: cty.String, Required: true, Checks: checks(schema.DNSLabel()), Description: "The namespace of the Secret."},
			{Name: "secret_name", Type: cty.String, Checks: checks(schema.ObjectName()), Description: "The Secret's name; the component's name with underscores as dashes when unset."},
			{Name: "class", Type: cty.String, Required: true, AllowedValues: []string{"ca", "server-cert", "client-cert", "rsa-key", "token", "password", "encryption-config", "vpn-tlsauth"}, Description: "What to generate."},
			{Name: "common_name", Type: cty.String, Description: "The certificate's common name (ca, server-cert, client-cert)."},
			{Name: "organization", Type: stringList, Description: "The certificate's organizations, the Kubernetes groups of a client certificate."},
			{Name: "dns_names", Type: stringList, Checks: checks(schema.DNSNameList()), Description: "DNS names of a server certificate."},
			{Name: "ip_addresses", Type: stringList, Description: "IP addresses of a server certificate."},
			{Name: "validity", Type: cty.String, Checks: checks(schema.Duration()), Description: "How long certificates are valid, such as \"8760h\"; the class's default when unset."},
			{Name: "length", Type: cty.Number, Checks: checks(schema.Positive()), Description: "Length of a token or password, bits of an RSA key; the class's default when unset."},
			{Name: "resources", Type: stringList, Description: "The resources, as resource.group (secrets, shootstates.core.gardener.cloud), an encryption-config encrypts in etcd; its AES key survives a change of them."},
			{Name: "ca", Type: cty.DynamicPseudoType, Description: "The generated_secret of class ca that signs this certificate (server-cert, client-cert), as a reference: ca = component.generated_secret.cluster_ca."},
		}},
		Outputs: []schema.Output{
			{Name: "secret_name", Type: cty.String, Description: "The name of the Secret."},
			{Name: "namespace", Type: cty.String, Description: "The namespace of the Secret."},
			{Name: "certificate", Type: cty.String, Description: "The PEM certificate of a CA or certificate (public; for CA bundles and kubeconfigs)."},
			{Name: "ca_certificate", Type: cty.String, Description: "The PEM certificate of the signing CA (of a CA: its own)."},
		},
	}
}
