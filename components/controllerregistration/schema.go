package controllerregistration

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a ControllerRegistration in the virtual
// garden (Gardener's ControllerRegistration in docs/api-reference/core.md,
// ControllerRegistrationDeployment in docs/api-reference/core.md, "ControllerRegistration"
// docs/extensions/registration.md): the extension kinds and types a controller serves and how
// Gardener deploys it to seeds.
func typeSchema() *schema.Schema {
	strategy := func(name, what string) schema.Attribute {
		return schema.Attribute{Name: name, Type: cty.String, AllowedValues: []string{"BeforeKubeAPIServer", "AfterKubeAPIServer", "AfterWorker"}, Description: "When the extension is " + what + " relative to the shoot's kube-apiserver and workers."}
	}
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "controller_registration",
		Description: "A ControllerRegistration in the virtual garden announcing an extension controller, the extension kinds and types it serves, " +
			"and when Gardener deploys it to seeds with the ControllerDeployment of a controller_deployment component.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the ControllerRegistration is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The registration's name; the block name when unset."},
				{Name: "controller_deployment", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The name of the ControllerDeployment that deploys the controller, such as component.controller_deployment.foo.name."},
				{Name: "policy", Type: cty.String, Default: cty.StringVal(PolicyOnDemand), AllowedValues: slices.Clone(Policies), Description: "When the controller is deployed to a seed: OnDemand when a shoot needs it, Always, or AlwaysExceptNoShoots (only to seeds with shoots)."},
				{Name: "seed_selector", Type: cty.Map(cty.String), Description: "Labels a seed must carry to get the controller; only for secondary controllers, whose resources all have primary = false."},
				{Name: "pod_security_enforce", Type: cty.String, AllowedValues: []string{"privileged", "baseline", "restricted"}, Description: "The Pod Security Standard enforced in the extension's namespace on seeds, the most restrictive one its pods comply with."},
			},
			Blocks: []schema.Block{{
				Name: "resource", Nesting: schema.NestingList, Labels: []string{"kind", "type"}, MinItems: 1,
				Description: "An extension kind and type the controller serves, such as resource \"Infrastructure\" \"aws\" or resource \"Extension\" \"shoot-dns-service\".",
				Body: schema.Body{
					Attributes: []schema.Attribute{
						// Gardener's ControllerResource in docs/api-reference/core.md primary is immutable.
						{Name: "primary", Type: cty.Bool, Default: cty.True, Immutable: true, Description: "Whether this controller owns the lifecycle of the kind and type; exactly one primary controller may exist for each."},
						{Name: "globally_enabled", Type: cty.Bool, Description: "Whether the Extension is enabled for every shoot unless a shoot disables it; only for kind Extension."},
						{Name: "reconcile_timeout", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long Gardener waits for the Extension to be reconciled, such as 3m; only for kind Extension."},
						{Name: "workerless_supported", Type: cty.Bool, Description: "Whether the Extension supports shoots without workers; only for kind Extension."},
					},
					Blocks: []schema.Block{{
						Name:        "lifecycle",
						Description: "When the Extension is reconciled, deleted and migrated relative to other shoot components; only for kind Extension.",
						Body: schema.Body{Attributes: []schema.Attribute{
							strategy("reconcile", "reconciled"),
							strategy("delete", "deleted"),
							strategy("migrate", "migrated"),
						}},
					}},
				},
			}},
		},
		Outputs: []schema.Output{{Name: "name", Type: cty.String, Description: "The registration's name."}},
	}
}
