package credentialsbinding

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a CredentialsBinding in the virtual garden
// (security.gardener.cloud/v1alpha1, Gardener's "Security" docs/api-reference/security.md): how
// shoots of a project use infrastructure credentials from a Secret or a WorkloadIdentity.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "credentials_binding",
		Description: "A CredentialsBinding in a project namespace of the virtual garden, which lets the project's shoots use infrastructure credentials " +
			"from a Secret or a WorkloadIdentity, optionally limited by quotas.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the CredentialsBinding is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The binding's name, which shoots name in credentials_binding; the block name when unset."},
				{Name: "namespace", Type: cty.String, Default: cty.StringVal(gardenapi.GardenNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The project namespace the binding lives in, such as component.project.dev.namespace."},
				// Gardener's CredentialsBinding in docs/api-reference/security.md provider is immutable.
				{Name: "provider_type", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The infrastructure provider the credentials are for, such as aws or local."},
			},
			Blocks: []schema.Block{
				{
					// Gardener's CredentialsBinding in docs/api-reference/security.md credentialsRef is immutable.
					Name: "credentials_ref", Required: true,
					Description: "The Secret or WorkloadIdentity holding the credentials; it cannot change once the binding exists.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "kind", Type: cty.String, Default: cty.StringVal(KindSecret), Immutable: true, AllowedValues: []string{"Secret", "WorkloadIdentity"}, Description: "Whether the credentials are a Secret or a WorkloadIdentity."},
						{Name: "name", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.ObjectName()), Description: "The name of the Secret or WorkloadIdentity."},
						{Name: "namespace", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the Secret or WorkloadIdentity; the binding's namespace when unset."},
					}},
				},
				gardenapi.QuotaRefBlock(),
			},
		},
		Outputs: gardenapi.BindingOutputs(),
	}
}
