package schemas

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// secretBinding is the component type for a SecretBinding in the virtual garden (Gardener's
// SecretBinding in docs/api-reference/core.md): the older way for shoots of a project to use
// infrastructure credentials from a Secret.
func secretBinding() *schema.Schema {
	ref := secretRef("The Secret with the infrastructure credentials; the binding's Secret cannot change later.")
	// Gardener's SecretBinding in docs/api-reference/core.md secretRef is immutable.
	ref.Immutable = true
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "secret_binding",
		Description: "A SecretBinding in a project namespace of the virtual garden, which lets the project's shoots use a Secret with infrastructure credentials, " +
			"optionally limited by quotas. Newer landscapes use credentials_binding instead.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				reference("cluster", schema.RefCluster, "The virtual garden cluster the SecretBinding is created in."),
				{Name: "name", Type: cty.String, Checks: checks(schema.ObjectName()), Description: "The binding's name, which shoots name in secret_binding; the block name when unset."},
				{Name: "namespace", Type: cty.String, Default: cty.StringVal("garden"), Checks: checks(schema.DNSLabel()), Description: "The project namespace the binding lives in, such as component.project.dev.namespace."},
				ref,
				// Gardener's SecretBinding in docs/api-reference/core.md secretRef (including its namespace) is
				// immutable.
				{Name: "secret_namespace", Type: cty.String, Immutable: true, Checks: checks(schema.DNSLabel()), Description: "The namespace of the Secret; the binding's namespace when unset."},
				// Gardener's SecretBinding in docs/api-reference/core.md provider is immutable.
				{Name: "provider_type", Type: cty.String, Required: true, Immutable: true, Checks: checks(schema.NotEmpty()), Description: "The infrastructure provider the credentials are for, such as aws or local."},
			},
			Blocks: []schema.Block{quotaRefBlock()},
		},
		Outputs: bindingOutputs(),
	}
}

// quotaRefBlock references a Quota limiting the shoots that use a binding (Gardener's SecretBinding
// in docs/api-reference/core.md, CredentialsBinding in docs/api-reference/security.md).
func quotaRefBlock() schema.Block {
	return schema.Block{
		Name: "quota", Nesting: schema.NestingList,
		Description: "A Quota that limits the shoots using this binding; quotas cannot be changed once the binding exists.",
		Body: schema.Body{Attributes: []schema.Attribute{
			{Name: "name", Type: cty.String, Required: true, Checks: checks(schema.ObjectName()), Description: "The Quota's name, such as component.quota.trial.name."},
			{Name: "namespace", Type: cty.String, Checks: checks(schema.DNSLabel()), Description: "The Quota's namespace; the binding's namespace when unset."},
		}},
	}
}

// bindingOutputs are the outputs of secret and credentials bindings, which shoots reference.
func bindingOutputs() []schema.Output {
	return []schema.Output{
		{Name: "name", Type: cty.String, Description: "The binding's name, for a shoot's binding attribute."},
		{Name: "namespace", Type: cty.String, Description: "The namespace the binding lives in."},
	}
}
