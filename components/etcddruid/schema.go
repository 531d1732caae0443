package etcddruid

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for etcd-druid, the operator behind the Etcd resources of the
// virtual garden and of shoot control planes (Gardener's "etcd" docs/concepts/etcd.md, "Gardener
// Operator" docs/concepts/operator.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "etcd_druid",
		Description: "The etcd-druid operator, which runs etcd clusters for druid.gardener.cloud/v1alpha1 Etcd resources, as gardenlet and gardener-operator deploy it: " +
			"the Etcd CRD, its ServiceAccount and RBAC, the Deployment with its webhook server, the metrics and webhook Service, the ValidatingWebhookConfiguration " +
			"that protects the objects druid manages, a PodDisruptionBudget and a VerticalPodAutoscaler; where etcd-wrapper or etcd-backup-restore images are " +
			"overridden, an etcd-druid-imagevector-overwrite ConfigMap hands them to the etcd pods druid creates.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The runtime cluster etcd-druid runs in and manages Etcds of."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of etcd-druid."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (etcd-druid, etcd-wrapper, etcd-backup-restore) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Run 2 leader-electing replicas spread over nodes and zones instead of 1 (in a seed, gardener-resource-manager's high-availability-config webhook sets the replicas)."},
			{Name: "workers", Type: cty.Number, Default: cty.NumberIntVal(DefaultWorkers), Checks: attr.Checks(schema.Positive()), Description: "How many Etcd resources etcd-druid reconciles concurrently."},
			attr.FeatureGates("etcd-druid"),
			{Name: "admission_webhooks", Type: cty.Bool, Default: cty.True, Description: "Whether the ValidatingWebhookConfiguration is registered; turn off only where nothing can serve it, such as the local control plane, whose pods never run."},
			{Name: "ca_bundle", Type: cty.String, Description: "The PEM CA certificate that signed the webhook server's certificate, for the webhook's caBundle."},
			{Name: "webhook_tls_secret_name", Type: cty.String, Default: cty.StringVal(DefaultWebhookTLSSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret (in the namespace) with the webhook server's certificate for etcd-druid.<namespace>.svc: tls.crt and tls.key, as a generated_secret of class server-cert writes them."},
		}},
	}
}
