package resourcemanager

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the garden runtime cluster's
// gardener-resource-manager, deployed first because its ManagedResource controller brings up the
// remaining garden system components (Gardener's "Gardener Operator" docs/concepts/operator.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_resource_manager",
		Description: "The garden runtime cluster's gardener-resource-manager: the ManagedResource CRD, RBAC, its component configuration, " +
			"a Deployment of 2 replicas with Service and PodDisruptionBudget, and its admission webhooks (high availability, projected " +
			"tokens, topology spread, EndpointSlice hints, optional seccomp defaulting, deletion protection and extension validation). " +
			"It reconciles ManagedResources of one class, \"seed\" for the runtime cluster.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The garden runtime cluster."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace gardener-resource-manager runs in."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries by image name (gardener-resource-manager): \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.BoolVal(false), Description: "Whether to spread the replicas over zones as well as nodes. " +
				"The replica count is 2 either way, as for every webhook server."},
			{Name: "admission_webhooks", Type: cty.Bool, Default: cty.BoolVal(true), Description: "Whether the webhook configurations are registered; turn off only where nothing can serve them, " +
				"such as the local control plane, whose pods never run."},
			{Name: "ca_bundle", Type: cty.String, Description: "The PEM certificate(s) of the CA that signed the webhook server's certificate, " +
				"e.g. component.generated_secret.grm_server.ca_certificate; the webhooks carry no caBundle when unset."},
			{Name: "server_tls_secret_name", Type: cty.String, Default: cty.StringVal(DefaultServerTLSSecretName), Checks: attr.Checks(schema.ObjectName()),
				Description: "The kubernetes.io/tls Secret (tls.crt, tls.key) the webhook server serves with; its certificate must name the Service gardener-resource-manager.<namespace>.svc."},
			{Name: "class", Type: cty.String, Default: cty.StringVal(DefaultClass), Checks: attr.Checks(schema.NotEmpty()), Description: "The ManagedResource .spec.class reconciled; gardener-operator counts class seed as runtime components."},
			{Name: "concurrent_syncs", Type: cty.Number, Default: cty.NumberIntVal(DefaultConcurrentSyncs), Checks: attr.Checks(schema.Positive()), Description: "Workers of each controller."},
			{Name: "log_level", Type: cty.String, Default: cty.StringVal(DefaultLogLevel), AllowedValues: slices.Clone(LogLevels), Description: "The log level."},
			{Name: "log_format", Type: cty.String, Default: cty.StringVal(DefaultLogFormat), AllowedValues: slices.Clone(LogFormats), Description: "The log format."},
			{Name: "default_seccomp_profile", Type: cty.Bool, Default: cty.BoolVal(false), Description: "Whether pods without a seccomp profile get RuntimeDefault, " +
				"like gardener-operator's DefaultSeccompProfile feature gate."},
		}},
		Outputs: []schema.Output{
			{Name: "service_name", Type: cty.String, Description: "The name of the webhook and metrics Service."},
			{Name: "namespace", Type: cty.String, Description: "The namespace gardener-resource-manager runs in."},
		},
	}
}
