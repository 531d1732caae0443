package manifests

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for plain Kubernetes objects, for whatever no dedicated
// component type covers (a namespace, a ConfigMap, a CRD instance).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "manifests",
		Description: "Plain Kubernetes objects, given inline as HCL objects or read from YAML files, applied to a cluster as they are. " +
			"Set objects, files or both; a block with neither is rejected when the landscape is loaded.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the objects are applied to."),
			// A dynamic value rather than list(any): a list's elements must share one type, and a
			// Deployment and a Service do not.
			{Name: "objects", Type: cty.DynamicPseudoType, Description: "A list of Kubernetes objects, each an object with apiVersion, kind and metadata, often written with yamldecode."},
			{Name: "files", Type: attr.StringList, Path: true, Description: "Paths, relative to the landscape directory, of YAML files with one or more objects separated by ---."},
			{Name: "namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace for namespaced objects that do not name one."},
		}},
		Rules: []schema.Rule{schema.AtLeastOneOf("objects", "files")},
	}
}
