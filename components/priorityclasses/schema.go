package priorityclasses

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for Gardener's well-known PriorityClasses, which every
// other component's pods name (Gardener's "Priority Classes" docs/development/priority-classes.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "priority_classes",
		Description: "Gardener's well-known PriorityClasses with their documented values: the gardener-garden-system-* classes of a garden " +
			"runtime cluster, or the gardener-system-* classes of a seed. Components of the catalog name these classes, so they come first.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the PriorityClasses are created in."),
			{Name: "set", Type: cty.String, Default: cty.StringVal("garden"), AllowedValues: []string{"garden", "seed"}, Description: "Which classes: garden (runtime cluster of a garden) or seed (seed system components and shoot control planes)."},
		}},
	}
}
