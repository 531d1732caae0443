package helmrelease

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for installing a Helm chart into a cluster, the way most
// software around a landscape (cert-manager, ingress controllers, monitoring) is packaged.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "helm_release",
		Description: "A release of a Helm chart, rendered offline like `helm template` and applied like every other component's objects, " +
			"so they appear in plans and are pruned when the release is removed. Templates see Kubernetes 1.35 and no cluster (lookup finds nothing); " +
			"objects come in Helm's install order; hooks that run on install or upgrade become ordinary objects, test, delete and rollback hooks are skipped.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The cluster the chart's objects are applied to."),
			{Name: "chart", Type: cty.String, Required: true, Path: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The chart: a directory or .tgz archive, relative to the landscape directory. OCI references (oci://...) are not supported yet, since rendering must not need the network: vendor the chart's .tgz into the landscape."},
			{Name: "version", Type: cty.String, Description: "The chart version expected: when set, the chart's own version must equal it, a guard against vendoring another version by mistake."},
			{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace the release is installed into and namespaced objects without one are placed in."},
			{Name: "create_namespace", Type: cty.Bool, Default: cty.True, Description: "Whether the namespace is rendered as an object of this release (after the chart's CRDs, before everything else); leave it off when the chart or another component creates it."},
			{Name: "release_name", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The Helm release name, visible to the chart's templates; the component's name (underscores as dashes) when unset."},
			{Name: "values", Type: cty.DynamicPseudoType, Description: "Values for the chart's templates, as an object; they override the chart's own defaults."},
			{Name: "sensitive_values", Type: cty.DynamicPseudoType, Sensitive: true, Description: "Further values, merged over values, that hold secrets and are therefore never shown in plans or logs. " +
				"What the chart's templates make of them cannot always be recognised, so a release with sensitive_values shows the keys of its ConfigMaps and Secrets but not their values, unless output_safe is set."},
			{Name: "output_safe", Type: cty.Bool, Default: cty.False, Description: "Whether the values of the release's ConfigMaps may be shown although it has sensitive_values: set it when no template writes a sensitive value into a ConfigMap. " +
				"Values the engine traces to sensitive_values stay hidden either way, and so does every Secret's data."},
		}},
		Outputs: []schema.Output{
			{Name: "release_name", Type: cty.String, Description: "The Helm release name actually used."},
			{Name: "namespace", Type: cty.String, Description: "The namespace the release is installed into."},
		},
	}
}
