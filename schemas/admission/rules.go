package admission

import "github.com/declarative-gardener/gardener/engine/schema"

// Rules returns the landscape rules that mirror gardener-apiserver's admission, for
// schema.Registry.AddLandscapeRules.
func Rules() []schema.LandscapeRule {
	return []schema.LandscapeRule{
		{
			Name: "registered-extension-types",
			Describe: "every extension kind and type a seed or shoot uses (provider, DNS provider, backup provider, networking type, " +
				"machine image, extensions) is registered by an extension or controller_registration of the landscape, " +
				"as gardener-apiserver's ExtensionValidator demands; checked when the landscape registers any extension",
			Func: checkExtensions,
		},
		{
			Name: "cloud-profile-offers",
			Describe: "a shoot's provider type, region, zones, Kubernetes versions, machine types, machine images and volumes " +
				"are offered by the cloud_profile it names, as gardener-apiserver's ShootValidator demands",
			Func: checkCloudProfiles,
		},
		{
			Name: "declared-references",
			Describe: "the cloud profile, credentials or secret binding a shoot names and the quotas of a binding are declared " +
				"by the landscape (an error where it declares others of the kind, a warning where the object may exist outside it)",
			Func: checkReferences,
		},
	}
}
