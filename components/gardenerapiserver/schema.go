package gardenerapiserver

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type of the aggregated API server serving Gardener's API
// groups in the virtual garden (Gardener's "Gardener API Server" docs/concepts/apiserver.md).
func typeSchema() *schema.Schema {
	attrs := append(gardenercontrolplane.Attributes("gardener-apiserver"),
		schema.Attribute{Name: "cluster_identity", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The identity of the garden (--cluster-identity); it cannot change."},
		schema.Attribute{Name: "etcd_endpoint", Type: cty.String, Description: "The client URL of the etcd gardener-apiserver stores its data in; virtual-garden-etcd-main's (https://virtual-garden-etcd-main-client.<namespace>.svc:2379) when unset."},
		schema.Attribute{Name: "etcd_ca_secret_name", Type: cty.String, Default: cty.StringVal("ca-etcd"), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret with the etcd CA certificate (key ca.crt)."},
		schema.Attribute{Name: "etcd_client_secret_name", Type: cty.String, Default: cty.StringVal("etcd-client"), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret with the etcd client certificate (keys tls.crt, tls.key)."},
		schema.Attribute{Name: "encryption_config_secret_name", Type: cty.String, Default: cty.StringVal(Name + "-etcd-encryption-configuration"), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret with the EncryptionConfiguration (key encryption-configuration.yaml). The landscape provides it; its resources must be the output encrypted_resources."},
		schema.Attribute{Name: "encrypted_resources", Type: attr.StringList, Description: "Resources to encrypt in etcd (<plural>.<group>) besides controllerdeployments, controllerregistrations, internalsecrets and shootstates of core.gardener.cloud, which are always encrypted."},
		schema.Attribute{Name: "audit_policy_config_map_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "A ConfigMap (key audit-policy.yaml) with an audit policy; audit events are then logged to standard output. No auditing when unset."},
		schema.Attribute{Name: "default_watch_cache_size", Type: cty.Number, Checks: attr.Checks(schema.NonNegative()), Description: "The default watch cache size (--default-watch-cache-size); only 0, which disables the watch cache, has an effect on current versions. The server's default when unset."},
		schema.Attribute{Name: "tls_secret_name", Type: cty.String, Default: cty.StringVal(Name + "-tls"), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret with the serving certificate (keys tls.crt, tls.key); its DNS names must include gardener-apiserver.kube-system.svc."},
		schema.Attribute{Name: "register_api_services", Type: cty.Bool, Default: cty.True, Description: "Whether the APIServices for the Gardener API groups and the kube-system/gardener-apiserver Service they point at are created in the virtual garden; turn off where the Gardener API is served otherwise, such as the local control plane's stand-in CRDs."},
		schema.Attribute{Name: "ca_bundle", Type: cty.String, Description: "The CA bundle of the serving certificate for the APIServices, PEM or base64; omitted when unset."},
		schema.Attribute{Name: "runtime_service_address", Type: cty.String, Description: "Where the virtual garden's kube-system/gardener-apiserver Service leads: a DNS name makes it an ExternalName Service, an IP address (such as the runtime Service's cluster IP) a Service with Endpoints, for a virtual kube-apiserver with --enable-aggregator-routing. gardener-apiserver.<namespace>.svc when unset."},
	)
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_apiserver",
		Description: "The Gardener API server (gardener-apiserver), the aggregated API server serving Gardener's API groups in the virtual garden, run in the garden runtime cluster " +
			"with its data in the virtual garden's etcd: Deployment, Service, HorizontalPodAutoscaler (2 to 6 replicas, at least 3 when highly available) " +
			"and PodDisruptionBudget, with its RBAC and APIServices in the virtual garden. It comes after the virtual kube-apiserver and before gardener-admission-controller.",
		Body: schema.Body{Attributes: attrs},
		Outputs: []schema.Output{
			{Name: "service_name", Type: cty.String, Description: "The name of the gardener-apiserver Service in the runtime cluster (and in the virtual garden's kube-system)."},
			{Name: "encrypted_resources", Type: attr.StringList, Description: "The resources the EncryptionConfiguration in encryption_config_secret_name must encrypt, sorted."},
		},
	}
}
