package gardeneradmissioncontroller

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type of the webhook server validating requests to
// the virtual garden and authorising gardenlets (Gardener's "Gardener Admission Controller"
// docs/concepts/admission-controller.md, "Scoped API Access for gardenlets and Extensions"
// docs/deployment/gardenlet_api_access.md).
func typeSchema() *schema.Schema {
	attrs := append(gardenercontrolplane.Attributes("gardener-admission-controller"),
		schema.Attribute{Name: "tls_secret_name", Type: cty.String, Default: cty.StringVal(Name + "-tls"), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret with the serving certificate (keys tls.crt, tls.key); its DNS names must include gardener-admission-controller.<namespace> and gardener-admission-controller.<namespace>.svc."},
		schema.Attribute{Name: "ca_bundle", Type: cty.String, Description: "The CA bundle of the serving certificate for the webhook configuration, PEM or base64; omitted when unset."},
		schema.Attribute{Name: "admission_webhooks", Type: cty.Bool, Default: cty.True, Description: "Whether the webhook configurations are registered; turn off only where nothing can serve them, such as the local control plane, whose pods never run."},
		schema.Attribute{Name: "seed_restriction", Type: cty.Bool, Default: cty.True, Description: "Whether the SeedRestriction webhook is registered; it belongs with the SeedAuthorizer enabled on the virtual kube-apiserver."},
		schema.Attribute{Name: "resource_size_mode", Type: cty.String, Default: cty.StringVal("block"), AllowedValues: []string{"block", "log"}, Description: "Whether requests above a resource_size_limit are denied (block) or only logged (log); start with log, then switch to block."},
	)
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardener_admission_controller",
		Description: "The Gardener admission controller (gardener-admission-controller), the webhook server behind the virtual garden's kubeconfig, namespace, resource size and configuration " +
			"validators, SeedRestriction and the SeedAuthorizer (https://gardener-admission-controller.garden/webhooks/auth/seed): Deployment (2 replicas), " +
			"Service, ConfigMap and PodDisruptionBudget in the runtime cluster, its ValidatingWebhookConfiguration and RBAC in the virtual garden. " +
			"It starts only once gardener-apiserver serves.",
		Body: schema.Body{
			Attributes: attrs,
			Blocks: []schema.Block{
				{
					Name: "resource_size_limit", Nesting: schema.NestingList,
					Description: "A maximum size for resources, such as 100k for shoots of core.gardener.cloud; without any, requests are not size-checked.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "api_groups", Type: attr.StringList, Required: true, Description: "API groups of the resources; \"\" is the core group, \"*\" all."},
						{Name: "api_versions", Type: attr.StringList, Default: attr.ListOf("*"), Description: "API versions of the resources; \"*\" is all."},
						{Name: "resources", Type: attr.StringList, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The resources (plural names)."},
						{Name: "size", Type: cty.String, Required: true, Checks: attr.Checks(schema.Quantity()), Description: "The maximum size, without status and managed fields, such as 100k."},
					}},
				},
				{
					Name: "unrestricted_subject", Nesting: schema.NestingList,
					Description: "A user, group or ServiceAccount exempt from the size limits; when none is given, the group of all gardenlets (gardener.cloud:system:seeds) is.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "kind", Type: cty.String, Required: true, AllowedValues: []string{"User", "Group", "ServiceAccount"}, Description: "The kind of subject."},
						{Name: "name", Type: cty.String, Required: true, Description: "The subject's name; \"*\" matches all."},
						{Name: "namespace", Type: cty.String, Description: "The namespace of a ServiceAccount."},
					}},
				},
			},
		},
	}
}
