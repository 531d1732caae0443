package kubeapiserver

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the virtual garden's kube-apiserver
// (virtual-garden-kube-apiserver, Gardener's "Gardener Operator" docs/concepts/operator.md),
// exposed by SNI through Istio (Gardener's docs/concepts/operator.md), and later the API servers of
// shoot control planes.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "kube_apiserver",
		Description: "A kube-apiserver as a Deployment in the runtime cluster, by default the virtual garden's virtual-garden-kube-apiserver: " +
			"it stores resources in the main etcd and events in the events etcd, encrypts Secrets (and more resources on request) at rest, " +
			"scales horizontally between 2 (3 with high availability) and 6 replicas, and is exposed as api.<domain> and gardener.<domain> " +
			"through the Istio ingress gateway with TLS passthrough. Certificates, keys and the encryption configuration are Secrets it references by name.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The runtime cluster the API server runs in."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(etcd.DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the API server's objects."},
			{Name: "name_prefix", Type: cty.String, Default: cty.StringVal(etcd.DefaultNamePrefix), Immutable: true, Description: "Prefix of kube-apiserver and of the etcds' names: virtual-garden- for the virtual garden, empty for a shoot control plane."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (kube-apiserver) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "kubernetes_version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The Kubernetes version; it tags the image."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether at least 3 instead of 2 replicas run."},
			{Name: "workerless", Type: cty.Bool, Default: cty.True, Description: "Whether the cluster has no nodes, as the virtual garden: no Node authorizer, and the APIs of workloads are off unless runtime_config turns them on."},
			{Name: "dns_domains", Type: attr.StringList, Required: true, Checks: attr.Checks(schema.NotEmpty(), schema.DNSNameList()), Description: "Domains the API is served under as api.<domain> and gardener.<domain>; the first is the external hostname."},
			{Name: "service_network", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The IPv4 range Service cluster IPs are allocated from."},
			{Name: "cluster_domain", Type: cty.String, Default: cty.StringVal(DefaultClusterDomain), Checks: attr.Checks(schema.DNSName()), Description: "The runtime cluster's DNS domain, for the Istio destination host."},
			{Name: "etcd_main_endpoint", Type: cty.String, Description: "URL of the main etcd; the client Service of the etcd component with the same prefix and namespace when unset."},
			{Name: "etcd_events_endpoint", Type: cty.String, Description: "URL of the events etcd; the client Service of the etcd component with the same prefix and namespace when unset."},
			attr.SecretName("ca_secret_name", "ca", "Secret with the cluster CA certificate (ca.crt), mounted beside the others."),
			attr.SecretName("etcd_ca_secret_name", "ca-etcd", "Secret with the etcd CA certificate (ca.crt)."),
			attr.SecretName("etcd_client_secret_name", "etcd-client", "Secret with the etcd client certificate (tls.crt, tls.key)."),
			attr.SecretName("server_tls_secret_name", "kube-apiserver", "Secret with the serving certificate (tls.crt, tls.key) for the output server_dns_names."),
			attr.SecretName("client_ca_secret_name", "ca-client", "Secret with the CA certificate (ca.crt) client certificates are verified with."),
			attr.SecretName("front_proxy_ca_secret_name", "ca-front-proxy", "Secret with the CA certificate (ca.crt) of the aggregation layer."),
			attr.SecretName("front_proxy_client_secret_name", "kube-aggregator", "Secret with the client certificate (tls.crt, tls.key) used to call aggregated API servers such as gardener-apiserver."),
			attr.SecretName("service_account_key_secret_name", "service-account-key", "Secret with the ServiceAccount token signing key (key.pem, pub.pem)."),
			{Name: "service_account_issuer", Type: cty.String, Description: "Issuer of ServiceAccount tokens; https://api.<first domain> when unset."},
			attr.SecretName("health_check_token_secret_name", DefaultHealthCheckTokenSecretName, "Secret with the token (token) of the health-check user, the only user of the static token file, with which the probes authenticate; a generated secret of class token."),
			attr.SecretName("encryption_config_secret_name", "kube-apiserver-etcd-encryption-configuration", "Secret with the EncryptionConfiguration (encryption-configuration.yaml) covering the output encrypted_resources."),
			{Name: "encrypted_resources", Type: attr.StringList, Description: "Resources, as resource.group, encrypted in etcd in addition to Secrets; custom resources need Kubernetes 1.26 or later."},
			{Name: "audit_policy_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the namespace with the audit policy (audit-policy.yaml); when unset, the component's audit-policy-config, which audits nothing."},
			{Name: "event_ttl", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long the API server keeps events; kube-apiserver's default (1h) when unset."},
			{Name: "anonymous_authentication", Type: cty.Bool, Default: cty.False, Description: "Whether requests without credentials are served as system:anonymous."},
			{Name: "api_audiences", Type: attr.StringList, Description: "Audiences ServiceAccount tokens must be bound to; kubernetes and gardener when unset, and gardener is always added."},
			{Name: "runtime_config", Type: cty.Map(cty.Bool), Description: "API groups and versions to turn on or off (--runtime-config), such as apps/v1 = true for a workerless cluster."},
			attr.FeatureGates("the kube-apiserver"),
			{Name: "enable_admission_plugins", Type: attr.StringList, Description: "Admission plugins to turn on in addition to the defaults and NodeRestriction."},
			{Name: "disable_admission_plugins", Type: attr.StringList, Description: "Default admission plugins (or NodeRestriction) to turn off."},
			{Name: "admission_plugin_configs", Type: cty.Map(cty.String), Description: "YAML configurations of enabled admission plugins by plugin name, such as yamlencode({...}); each becomes a file the AdmissionConfiguration points at."},
			{Name: "cpu_request", Type: cty.String, Default: cty.StringVal(defaultCPURequest), Checks: attr.Checks(schema.Quantity()), Description: "Initial CPU request of each replica."},
			{Name: "memory_request", Type: cty.String, Default: cty.StringVal(defaultMemRequest), Checks: attr.Checks(schema.Quantity()), Description: "Initial memory request of each replica."},
			{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.GardenSystem500), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the pods; gardener-system-500 for shoot control planes."},
			{Name: "topology_aware_routing", Type: cty.Bool, Default: cty.False, Description: "Whether the Service prefers endpoints in the caller's zone."},
			{Name: "scrape_targets_alias", Type: cty.String, Default: cty.StringVal(defaultScrapeAlias), Description: "Alias of the Prometheus allowed to scrape the API server: all-garden-scrape-targets in a garden, all-seed-scrape-targets or all-scrape-targets in a seed."},
			{Name: "sni", Type: cty.Bool, Default: cty.True, Description: "Whether the API server is exposed through the Istio ingress gateway (Gateway, VirtualService, DestinationRule)."},
			{Name: "ingress_gateway_labels", Type: cty.Map(cty.String), Description: "Labels of the Istio ingress gateway pods; app=istio-ingressgateway and istio=ingressgateway when unset."},
		}},
		Outputs: []schema.Output{
			{Name: "service_name", Type: cty.String, Description: "The name of the API server's ClusterIP Service."},
			{Name: "endpoint", Type: cty.String, Description: "The external URL, https://api.<first domain>."},
			{Name: "internal_endpoint", Type: cty.String, Description: "The in-cluster URL, https://<service>.<namespace>.svc."},
			{Name: "server_dns_names", Type: attr.StringList, Description: "The names the serving certificate must cover."},
			{Name: "encrypted_resources", Type: attr.StringList, Description: "The resources the encryption configuration must cover: secrets and the configured ones, sorted."},
		},
	}
}
