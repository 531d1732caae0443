package kinds

// gardenerResources is resources.gardener.cloud, gardener-resource-manager's API.
var gardenerResources = Group{
	Name: "resources.gardener.cloud",
	Kinds: []Rules{
		{Kind: "ManagedResource", Readiness: ManagedResourceHealthy},
	},
}
