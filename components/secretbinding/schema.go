package secretbinding

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a SecretBinding in the virtual garden (Gardener's
// SecretBinding in docs/api-reference/core.md): the older way for shoots of a project to use
// infrastructure credentials from a Secret.
func typeSchema() *schema.Schema {
	ref := attr.SecretRef("The Secret with the infrastructure credentials; the binding's Secret cannot change later.")
	// Gardener's SecretBinding in docs/api-reference/core.md secretRef is immutable.
	ref.Immutable = true
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "secret_binding",
		Description: "A SecretBinding in a project namespace of the virtual garden, which lets the project's shoots use a Secret with infrastructure credentials, " +
			"optionally limited by quotas. Newer landscapes use credentials_binding instead.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the SecretBinding is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The binding's name, which shoots name in secret_binding; the block name when unset."},
				{Name: "namespace", Type: cty.String, Default: cty.StringVal(gardenapi.GardenNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The project namespace the binding lives in, such as component.project.dev.namespace."},
				ref,
				// Gardener's SecretBinding in docs/api-reference/core.md secretRef (including its namespace) is
				// immutable.
				{Name: "secret_namespace", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the Secret; the binding's namespace when unset."},
				// Gardener's SecretBinding in docs/api-reference/core.md provider is immutable.
				{Name: "provider_type", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The infrastructure provider the credentials are for, such as aws or local."},
			},
			Blocks: []schema.Block{gardenapi.QuotaRefBlock()},
		},
		Outputs: gardenapi.BindingOutputs(),
	}
}
