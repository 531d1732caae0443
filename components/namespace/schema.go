package namespace

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for one Namespace with labels and annotations, so that a
// landscape declares the namespaces its components live in together with the labels Gardener's
// webhooks and controllers select them by.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "namespace",
		Description: "A Namespace with labels and annotations. Gardener selects namespaces by label, e.g. " +
			"high-availability-config.resources.gardener.cloud/consider=true for the high-availability webhook, so set them here.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the Namespace is created in."),
			{Name: "name", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The Namespace's name; the component's name with underscores as dashes when unset."},
			{Name: "labels", Type: cty.Map(cty.String), Description: "Labels of the Namespace."},
			{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations of the Namespace."},
		}},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The Namespace's name."},
		},
	}
}
