package extension

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for one Gardener extension, declared once and installed on
// the seeds that need it: the ControllerDeployment and ControllerRegistration in the virtual garden
// (Gardener's "ControllerRegistration" docs/extensions/registration.md) and, on each seed for which
// gardener-controller-manager made a ControllerInstallation, what gardenlet installs for it: the
// chart with the mix-in values in a ManagedResource (Gardener's "gardenlet"
// docs/concepts/gardenlet.md, docs/extensions/registration.md). Its registration attributes and
// resource blocks are those of controller_registration.
func typeSchema() *schema.Schema {
	reg := controllerregistration.Type.Schema().Body
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "extension",
		Description: "A Gardener extension declared once: its ControllerDeployment and ControllerRegistration in the virtual garden (part registration), " +
			"and on every seed for which gardener-controller-manager creates a ControllerInstallation (by the deployment policy, the seed selector " +
			"and what the seed and its shoots require; plans predict it) the chart installed the way gardenlet installs it (part installation_<seed>): " +
			"into the namespace extension-<installation>, with the gardener.* values mixed in, through a ManagedResource in the seed's garden namespace. " +
			"An installation gardener-controller-manager has not created yet is rendered during the apply that creates the Seed or the Shoot that needs it.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("virtual_cluster", schema.RefCluster, "The virtual garden cluster of the registration and deployment, where gardener-controller-manager creates the installations."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The name of the ControllerRegistration and the ControllerDeployment; the block name when unset."},
				*reg.Attribute("policy"),
				*reg.Attribute("seed_selector"),
				*reg.Attribute("pod_security_enforce"),
				{Name: "chart", Type: cty.String, Required: true, Path: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The extension's Helm chart, a directory or a .tgz archive relative to the landscape directory; it is embedded in the ControllerDeployment and rendered for every seed."},
				{Name: "values", Type: cty.DynamicPseudoType, Description: "The chart's static values, as an object; the gardener.* values are mixed in over them per seed."},
				{
					Name: "seeds", Type: cty.DynamicPseudoType,
					Description: "The seeds of the landscape the extension may be installed on, a list of objects: name, cluster (a cluster reference), labels, annotations, " +
						"has_shoots, shoot_types (the kind/type pairs its shoots use, such as Infrastructure/local), provider, region, dns_provider, " +
						"backup_provider, ingress_domain, cluster_identity and spec (the Seed's spec, mixed in as gardener.seed.spec). " +
						"gardener-controller-manager decides which of them get a ControllerInstallation; plans predict it from what the entries declare " +
						"(has_shoots and shoot_types stand for the landscape's shoots not applied yet) and from the virtual garden's Seeds, Shoots, BackupBuckets, " +
						"BackupEntries, registrations and installations.",
				},
				{Name: "gardener_version", Type: cty.String, Description: "The Gardener version mixed in as gardener.version; the image vector's Gardener version when unset."},
				{Name: "garden_cluster_identity", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The garden's cluster identity, mixed in as gardener.garden.clusterIdentity."},
				{Name: "generic_kubeconfig_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "A Secret in the extension's namespace with a generic garden kubeconfig, mixed in as gardener.garden.genericKubeconfigSecretName; left out when unset."},
				{Name: "gardenlet_feature_gates", Type: cty.Map(cty.Bool), Description: "The gardenlet feature gates mixed in as gardener.gardenlet.featureGates."},
			},
			Blocks: []schema.Block{*reg.Block("resource")},
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The registration's name."},
			{Name: "seeds", Type: attr.StringList, Description: "The names of the seeds the extension is installed on, or will be once gardener-controller-manager has created their installations."},
			{Name: "extension_lifecycles", Type: cty.Map(attr.ExtensionLifecycle), Description: "The lifecycle of each of its Extension types, by type, with Gardener's defaults filled in; give it to shoots as extension_lifecycles so that they place their Extensions by it."},
		},
	}
}
