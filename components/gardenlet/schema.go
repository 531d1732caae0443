package gardenlet

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for gardenlet as deployed into a seed cluster, the objects of
// the gardenlet Helm chart (Gardener's "Deploy Gardenlet Manually"
// docs/deployment/deploy_gardenlet_manually.md) with its GardenletConfiguration (Gardener's
// "gardenlet" docs/concepts/gardenlet.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "gardenlet",
		Description: "The gardenlet in the seed's garden namespace as its Helm chart installs it: its ServiceAccount with the chart's ClusterRoles, the Secret " +
			"gardenlet-kubeconfig-bootstrap with a bootstrap kubeconfig for the garden, the GardenletConfiguration (garden client " +
			"connection, the Seed to register, controllers, feature gates, logging) in a ConfigMap, and the Deployment " +
			"(gardener-system-critical; two replicas by default). gardenlet trades the bootstrap token for a client " +
			"certificate, keeps its kubeconfig in the Secret gardenlet-kubeconfig, deletes the bootstrap Secret and registers the Seed.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The seed cluster gardenlet runs in."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of gardenlet."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (gardenlet) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "replicas", Type: cty.Number, Default: cty.NumberIntVal(2), Description: "The number of gardenlet's replicas (the chart's replicaCount, 2 as gardener-operator and ManagedSeeds deploy it); more than one are spread over nodes and the seed's zones, with a PodDisruptionBudget."},
			{Name: "seed_name", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The name of the Seed gardenlet registers in the garden."},
			{Name: "seed_labels", Type: cty.Map(cty.String), Description: "Labels of the Seed; gardenlet adds gardener.cloud/role=seed and removes labels not listed here."},
			{Name: "seed_spec", Type: cty.DynamicPseudoType, Required: true, Description: "The Seed's spec as the Seed API spells it (provider, networks, dns, ingress, backup, settings, ... with camelCase keys); gardenlet registers the Seed with it."},
			{Name: "garden_cluster_address", Type: cty.String, Description: "The garden API's external address for gardenlet and what it deploys; the kubeconfig's server when unset."},
			{Name: "garden_ca_bundle", Type: cty.String, Description: "The garden API's CA certificate (PEM); gardenlet updates the CA in its kubeconfig when it changes."},
			{Name: "bootstrap_kubeconfig", Type: cty.String, Sensitive: true, Description: "A kubeconfig for the garden with a bootstrap token allowed to create CertificateSigningRequests. Without it, the Secret gardenlet-kubeconfig must exist already."},
			attr.FeatureGates("gardenlet"),
			{Name: "log_level", Type: cty.String, Default: cty.StringVal(logLevels[0]), AllowedValues: slices.Clone(logLevels), Description: "The log level of gardenlet."},
			{Name: "controllers", Type: cty.DynamicPseudoType, Description: "The GardenletConfiguration's controllers section as gardenlet spells it (for example { shoot = { syncPeriod = \"1h\" } }); gardenlet's defaults when unset."},
		}},
	}
}
