package kinds

// gardenerSeedManagement is seedmanagement.gardener.cloud. Of ManagedSeed and ManagedSeedSet,
// bootstrap, mergeWithParent and revisionHistoryLimit have defaults (Gardener's GardenletConfig in
// docs/api-reference/seedmanagement.md, ManagedSeedSet in docs/api-reference/seedmanagement.md).
var gardenerSeedManagement = Group{
	Name: "seedmanagement.gardener.cloud",
	Kinds: []Rules{
		{
			// The engine confirms a ManagedSeed's deletion as well, although gardener-apiserver
			// v1.120.0 does not ask for it (its DeletionConfirmation plugin checks Shoots,
			// Projects and ShootStates); the annotation does no harm.
			Kind: "ManagedSeed", Readiness: ManagedSeedReady, ConfirmDeletion: true,
			Irreplaceable: &Irreplaceable{Loses: "delete its gardenlet and the seed it registers", Instead: "declare a new managed seed"},
			Immutable: []ImmutableField{
				{Path: ".spec.shoot"},                                    // Gardener's ManagedSeed in docs/api-reference/seedmanagement.md
				{Path: ".spec.gardenlet.bootstrap", When: BothSet},       // Gardener's GardenletConfig in docs/api-reference/seedmanagement.md
				{Path: ".spec.gardenlet.mergeWithParent", When: BothSet}, // Gardener's GardenletConfig in docs/api-reference/seedmanagement.md
			},
		},
		{
			Kind: "ManagedSeedSet",
			Immutable: []ImmutableField{
				{Path: ".spec.selector"},                            // Gardener's ManagedSeedSet in docs/api-reference/seedmanagement.md
				{Path: ".spec.revisionHistoryLimit", When: BothSet}, // Gardener's ManagedSeedSet in docs/api-reference/seedmanagement.md
			},
		},
	},
}
