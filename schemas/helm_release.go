package schemas

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// helmRelease is the component type for installing a Helm chart into a cluster, the way most
// software around a landscape (cert-manager, ingress controllers, monitoring) is packaged.
func helmRelease() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "helm_release",
		Description: "A release of a Helm chart: the chart is rendered with the given values and its objects are applied to the cluster " +
			"like every other component's, so they appear in plans and are pruned when the release is removed.",
		Body: schema.Body{Attributes: []schema.Attribute{
			reference("cluster", schema.RefCluster, "The cluster the chart's objects are applied to."),
			{Name: "chart", Type: cty.String, Required: true, Checks: checks(schema.NotEmpty()), Description: "Where the chart comes from: a directory or .tgz path relative to the landscape, or an OCI reference such as oci://registry.example.com/charts/app."},
			{Name: "version", Type: cty.String, Description: "The chart version to use from an OCI repository; a local chart is used as it is."},
			{Name: "namespace", Type: cty.String, Required: true, Checks: checks(schema.DNSLabel()), Description: "The namespace the release is installed into and namespaced objects without one are placed in."},
			{Name: "create_namespace", Type: cty.Bool, Default: cty.True, Description: "Whether the namespace is created (and owned) by this release when it does not exist."},
			{Name: "release_name", Type: cty.String, Checks: checks(schema.DNSLabel()), Description: "The Helm release name, visible to the chart's templates; the component's name when unset."},
			{Name: "values", Type: cty.DynamicPseudoType, Description: "Values for the chart's templates, as an object; they override the chart's own defaults."},
			{Name: "sensitive_values", Type: cty.DynamicPseudoType, Sensitive: true, Description: "Further values, merged over values, that hold secrets and are therefore never shown in plans or logs."},
		}},
		Outputs: []schema.Output{
			{Name: "release_name", Type: cty.String, Description: "The Helm release name actually used."},
			{Name: "namespace", Type: cty.String, Description: "The namespace the release is installed into."},
		},
	}
}
