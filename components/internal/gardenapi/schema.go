package gardenapi

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// QuotaRefBlock references a Quota limiting the shoots that use a binding (Gardener's SecretBinding
// in docs/api-reference/core.md, CredentialsBinding in docs/api-reference/security.md); it decodes
// into a Ref.
func QuotaRefBlock() schema.Block {
	return schema.Block{
		Name: "quota", Nesting: schema.NestingList,
		Description: "A Quota that limits the shoots using this binding; quotas cannot be changed once the binding exists.",
		Body: schema.Body{Attributes: []schema.Attribute{
			{Name: "name", Type: cty.String, Required: true, Checks: attr.Checks(schema.ObjectName()), Description: "The Quota's name, such as component.quota.trial.name."},
			{Name: "namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The Quota's namespace; the binding's namespace when unset."},
		}},
	}
}

// BindingOutputs are the outputs of secret and credentials bindings, which shoots reference.
func BindingOutputs() []schema.Output {
	return []schema.Output{
		{Name: "name", Type: cty.String, Description: "The binding's name, for a shoot's binding attribute."},
		{Name: "namespace", Type: cty.String, Description: "The namespace the binding lives in."},
	}
}
