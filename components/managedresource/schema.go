package managedresource

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for objects that a gardener-resource-manager applies to
// its target cluster (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md):
// the objects packed into a Secret and a ManagedResource referring to it, whose health the engine
// waits for (pkg/utils/kubernetes/health/managedresource.go).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "managed_resource",
		Description: "Kubernetes objects, given inline or read from YAML files like the manifests component's, packed into a Secret " +
			"and a gardener-resource-manager ManagedResource that refers to it. The resource manager of the given class applies " +
			"the objects to its target cluster, and the component is ready once the ManagedResource is applied, healthy and not progressing.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the ManagedResource and its Secret are created in."),
			{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the ManagedResource and its Secret, e.g. garden in a seed or a shoot's namespace."},
			{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The ManagedResource's name; the component's name with underscores as dashes when unset. The Secret is named managedresource-<name>-<8 hex digits of a checksum of its objects>, immutable, as Gardener names it."},
			{Name: "class", Type: cty.String, Description: "The resource manager class: seed for a seed's own resource manager; unset for the shoot resource manager, which applies into the shoot."},
			{Name: "keep_objects", Type: cty.Bool, Default: cty.False, Description: "Whether the objects stay in the target cluster when the ManagedResource is deleted."},
			{Name: "inject_labels", Type: cty.Map(cty.String), Description: "Labels the resource manager adds to every object it applies."},
			// Dynamic for the same reason as the manifests component's: the objects' types differ.
			{Name: "objects", Type: cty.DynamicPseudoType, Description: "A list of Kubernetes objects, each with apiVersion, kind and metadata, often written with yamldecode. Namespaced objects should name their namespace."},
			{Name: "files", Type: attr.StringList, Path: true, Description: "Paths, relative to the landscape directory, of YAML files with one or more objects separated by ---."},
		}},
		Rules: []schema.Rule{schema.AtLeastOneOf("objects", "files")},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The ManagedResource's name."},
		},
	}
}
