package exposureclass

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for an ExposureClass in the virtual garden (Gardener's
// ExposureClass in docs/api-reference/core.md, "ExposureClasses"
// docs/usage/networking/exposureclasses.md): a way of exposing shoot API servers, such as only on
// an internal network.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "exposure_class",
		Description: "An ExposureClass in the virtual garden: a named way to expose shoot API servers, such as only on an internal network, " +
			"realised by an exposure handler in the gardenlet configuration of the seeds it selects. Shoots name it in exposure_class.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the ExposureClass is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The class's name, which shoots name in exposure_class; the block name when unset."},
				// Gardener's ExposureClass in docs/api-reference/core.md handler is immutable.
				{Name: "handler", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The exposure handler, as named in the gardenlet configuration's exposureClassHandlers, that realises the class."},
				// Gardener's ExposureClass in docs/api-reference/core.md scheduling is immutable.
				{Name: "seed_selector", Type: cty.Map(cty.String), Immutable: true, Description: "Labels a seed must carry to host shoots of this class, merged into the shoots' own seed selectors."},
				{Name: "seed_provider_types", Type: attr.StringList, Immutable: true, Description: "Provider types of the seeds that may host shoots of this class; * allows any."},
			},
			Blocks: []schema.Block{{
				Name: "tolerations", Nesting: schema.NestingList, Labels: []string{"key"},
				Description: "A seed taint, by key, that shoots of this class tolerate; the tolerations cannot change once the class exists.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "value", Type: cty.String, Description: "The taint value tolerated; any value when unset."},
				}},
			}},
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The class's name, for a shoot's exposure_class."},
			{Name: "handler", Type: cty.String, Description: "The class's handler, for a shoot's exposure_class_handler."},
		},
	}
}
