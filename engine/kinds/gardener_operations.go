package kinds

// gardenerOperations is operations.gardener.cloud.
var gardenerOperations = Group{
	Name: "operations.gardener.cloud",
	Kinds: []Rules{
		{
			Kind: "Bastion", Readiness: BastionReady,
			Immutable: []ImmutableField{
				{Path: ".spec.shootRef.name"}, // Gardener's Bastion in docs/api-reference/operations.md
				{Path: ".spec.sshPublicKey"},  // Gardener's Bastion in docs/api-reference/operations.md
			},
		},
	},
}
