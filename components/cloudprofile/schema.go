package cloudprofile

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a CloudProfile in the virtual garden (Gardener's
// CloudProfile in docs/api-reference/core.md, MachineImage in docs/api-reference/core.md): what one
// provider environment offers shoots. Its lists are repeatable blocks labelled with the entry's
// name, so that each entry reads as one declaration and names are unique.
func typeSchema() *schema.Schema {
	classification := func() schema.Attribute {
		return schema.Attribute{Name: "classification", Type: cty.String, AllowedValues: []string{"preview", "supported", "deprecated"}, Description: "The version's lifecycle state: preview, supported or deprecated."}
	}
	expiration := func() schema.Attribute {
		return schema.Attribute{Name: "expiration_date", Type: cty.String, Description: "An RFC 3339 time, such as 2026-01-31T23:59:59Z, after which shoots may no longer use the version."}
	}
	usable := func() schema.Attribute {
		return schema.Attribute{Name: "usable", Type: cty.Bool, Default: cty.True, Description: "Whether shoots may use the type; false keeps it for existing worker pools only."}
	}
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "cloud_profile",
		Description: "A CloudProfile in the virtual garden listing what one provider environment offers shoots: Kubernetes versions, machine images, " +
			"machine and volume types, and regions with their zones. Shoots name it in cloud_profile.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the CloudProfile is created in."),
				{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The profile's name, which shoots name in cloud_profile; the block name when unset."},
				{Name: "type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The provider type, such as aws or local, which a provider extension must serve."},
				attr.ProviderConfig("Provider-specific profile settings, such as image IDs per region, as an object in the form the provider extension defines."),
				{Name: "ca_bundle", Type: cty.String, Description: "PEM certificates installed on every machine of shoots using the profile, for registries or proxies with private CAs."},
			},
			Blocks: []schema.Block{
				{
					Name: "kubernetes_version", Nesting: schema.NestingList, Labels: []string{"version"}, MinItems: 1,
					Description: "A Kubernetes version shoots may use, labelled MAJOR.MINOR.PATCH such as \"1.33.1\".",
					Body:        schema.Body{Attributes: []schema.Attribute{classification(), expiration()}},
				},
				{
					Name: "machine_image", Nesting: schema.NestingList, Labels: []string{"name"}, MinItems: 1,
					Description: "An operating system image worker pools may use, labelled with its name such as gardenlinux.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "update_strategy", Type: cty.String, Default: cty.StringVal(UpdateMajor), AllowedValues: slices.Clone(UpdateStrategies), Description: "How far automatic updates in maintenance go: the latest patch, the latest minor, or the latest version overall."},
						},
						Blocks: []schema.Block{{
							Name: "version", Nesting: schema.NestingList, Labels: []string{"version"}, MinItems: 1,
							Description: "A version of the image, labelled with the version such as \"1592.1.0\".",
							Body: schema.Body{Attributes: []schema.Attribute{
								classification(),
								expiration(),
								{Name: "cri", Type: attr.StringList, Default: attr.ListOf(criContainerd), Checks: attr.Checks(schema.OneOf(criContainerd)), Description: "The container runtimes the version supports; Gardener supports containerd."},
								{Name: "architectures", Type: attr.StringList, Default: attr.ListOf(archAMD64), Checks: attr.Checks(schema.NotEmpty()), Description: "The CPU architectures the version exists for, such as amd64 and arm64."},
								{Name: "kubelet_version_constraint", Type: cty.String, Description: "A constraint on the kubelet versions the image supports, such as \">= 1.30\"; all when unset."},
							}},
						}},
					},
				},
				{
					Name: "machine_type", Nesting: schema.NestingList, Labels: []string{"name"}, MinItems: 1,
					Description: "A machine type worker pools may use, labelled with its name such as m5.large.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "cpu", Type: cty.String, Required: true, Checks: attr.Checks(schema.Quantity()), Description: "The number of CPUs, such as \"4\"."},
							{Name: "gpu", Type: cty.String, Default: cty.StringVal("0"), Checks: attr.Checks(schema.Quantity()), Description: "The number of GPUs."},
							{Name: "memory", Type: cty.String, Required: true, Checks: attr.Checks(schema.Quantity()), Description: "The amount of memory, such as \"16Gi\"."},
							{Name: "architecture", Type: cty.String, Default: cty.StringVal(archAMD64), Description: "The CPU architecture, such as amd64 or arm64."},
							usable(),
						},
						Blocks: []schema.Block{{
							Name:        "storage",
							Description: "The root volume of machine types that come with a fixed one.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "class", Type: cty.String, Required: true, Description: "The storage class, such as standard or premium."},
								{Name: "type", Type: cty.String, Required: true, Description: "The storage type, such as gp3."},
								{Name: "size", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "The size of the root volume, such as 50Gi."},
								{Name: "min_size", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "The smallest root volume shoots may ask for, such as 20Gi."},
							}},
						}},
					},
				},
				{
					Name: "volume_type", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A volume type worker pools may use for their nodes' disks, labelled with its name such as gp3.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "class", Type: cty.String, Required: true, Description: "The volume class, such as standard or premium, which quotas count."},
						usable(),
						{Name: "min_size", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "The smallest volume shoots may ask for, such as 20Gi."},
					}},
				},
				{
					Name: "region", Nesting: schema.NestingList, Labels: []string{"name"}, MinItems: 1,
					Description: "A region shoots may use, labelled with its name such as eu-central-1.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "zones", Type: attr.StringList, Description: "The region's availability zones, such as [\"eu-central-1a\", \"eu-central-1b\"]."},
						{Name: "labels", Type: cty.Map(cty.String), Description: "Operator-defined labels of the region, such as its quality or reliability."},
					}},
				},
			},
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The profile's name, for a shoot's cloud_profile."},
			{Name: "object", Type: cty.DynamicPseudoType, Description: "The CloudProfile as the block renders it, for a shoot's cloud_profile_object: the extensions Cluster of the shoot embeds it."},
		},
	}
}
