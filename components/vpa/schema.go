package vpa

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the Vertical Pod Autoscaler Gardener requires in every runtime
// cluster (Gardener's "Gardener Operator" docs/concepts/operator.md): its CRDs, RBAC, the three
// Deployments and the admission controller's webhook.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "vpa",
		Description: "The Vertical Pod Autoscaler of a garden runtime or seed cluster, as gardenlet and gardener-operator deploy it: the VerticalPodAutoscaler and " +
			"VerticalPodAutoscalerCheckpoint CRDs, vpa-admission-controller (with its vpa-webhook Service and zzz-vpa-webhook-config-source MutatingWebhookConfiguration), " +
			"vpa-recommender (with its metrics Service) and vpa-updater, with their ServiceAccounts, RBAC, PodDisruptionBudgets and (admission controller and updater) " +
			"VerticalPodAutoscalers. Gardener relies on a VPA; leave the component out only where the cluster already has one.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The runtime cluster the VPA runs in and acts on."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the VPA components."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (vpa-admission-controller, vpa-recommender, vpa-updater) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Run every component with 2 replicas spread over nodes and zones instead of 1 (in a seed, gardener-resource-manager's high-availability-config webhook sets the replicas)."},
			{Name: "admission_webhooks", Type: cty.Bool, Default: cty.True, Description: "Whether the webhook configurations are registered; turn off only where nothing can serve them, such as the local control plane, whose pods never run."},
			{Name: "ca_bundle", Type: cty.String, Description: "The PEM CA certificate that signed the admission controller's serving certificate, for the webhook's caBundle, such as component.generated_secret.vpa_ca.certificate."},
			{Name: "ca_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The CA Secret (in the namespace, key ca.crt) the admission controller verifies clients with, mounted as bundle.crt; unset takes ca.crt of tls_secret_name."},
			{Name: "tls_secret_name", Type: cty.String, Default: cty.StringVal(DefaultTLSSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret (in the namespace) with the admission controller's serving certificate: tls.crt, tls.key and ca.crt, as a generated_secret of class server-cert writes it."},
		}},
	}
}
