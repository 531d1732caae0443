package controllerdeployment

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a ControllerDeployment in the virtual garden
// (core.gardener.cloud/v1, Gardener's "Core V1" docs/api-reference/core-v1.md,
// "ControllerRegistration" docs/extensions/registration.md): the Helm chart and values that deploy
// an extension controller to seeds.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "controller_deployment",
		Description: "A ControllerDeployment in the virtual garden: the Helm chart, from a local archive or an OCI registry, and the values with which " +
			"Gardener deploys an extension controller to seeds. A controller_registration refers to it by name.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the ControllerDeployment is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The deployment's name, which controller registrations name in controller_deployment; the block name when unset."},
				{Name: "chart_archive", Type: cty.String, Path: true, Checks: attr.Checks(schema.NotEmpty()), Description: "Path, relative to the landscape directory, of the chart as a .tgz archive such as helm package writes; it is embedded in the object."},
				{Name: "raw_chart", Type: cty.String, Checks: attr.Checks(schema.NotEmpty()), Description: "The chart as a base64-encoded .tgz archive, for example from filebase64."},
				{Name: "values", Type: cty.DynamicPseudoType, Description: "The chart values, as an object."},
			},
			Blocks: []schema.Block{{
				Name:        "oci_repository",
				Description: "The OCI registry to pull the chart from: ref alone, or repository with tag or digest.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "ref", Type: cty.String, Description: "The full artifact reference, such as registry.example.com/charts/foo:1.0.0; set it alone."},
					{Name: "repository", Type: cty.String, Description: "The artifact repository, such as registry.example.com/charts/foo, with tag or digest."},
					{Name: "tag", Type: cty.String, Description: "The artifact tag, such as 1.0.0."},
					{Name: "digest", Type: cty.String, Description: "The artifact digest, sha256:<hex>, which wins over tag."},
				}},
			}},
		},
		Rules:   []schema.Rule{schema.ExactlyOneOf("chart_archive", "raw_chart", "oci_repository")},
		Outputs: []schema.Output{{Name: "name", Type: cty.String, Description: "The deployment's name, for a controller registration's controller_deployment."}},
	}
}
