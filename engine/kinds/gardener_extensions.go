package kinds

// gardenerExtensions is extensions.gardener.cloud, the resources extension controllers
// reconcile in a seed, written by gardenlet or, for shoot control planes the engine manages, by
// the landscape (Gardener's "Extensions" docs/api-reference/extensions.md). A kind of the group
// is ready once its last operation Succeeded; the extension controllers report nothing else.
var gardenerExtensions = Group{
	Name:      "extensions.gardener.cloud",
	Readiness: ExtensionSucceeded,
	Kinds: []Rules{
		// The Cluster is a data carrier for extension controllers without a status.
		{Kind: "Cluster", Scope: Cluster, Readiness: ObservedGeneration},
		// Deleting the resources of backups deletes the backups; deleting Infrastructure and
		// Worker makes the extension controllers tear down what they stand for.
		{
			Kind: "BackupBucket", Scope: Cluster, Protected: always,
			Irreplaceable: &Irreplaceable{Loses: "delete the bucket with every backup in it"},
			Immutable:     []ImmutableField{{Path: ".spec.region"}}, // Gardener's BackupBucket in docs/api-reference/extensions.md
		},
		{
			Kind: "BackupEntry", Scope: Cluster, Protected: always,
			Irreplaceable: &Irreplaceable{Loses: "delete the shoot's etcd backups"},
			Immutable:     []ImmutableField{{Path: ".spec.region"}}, // Gardener's BackupEntry in docs/api-reference/extensions.md
		},
		{
			Kind:          "Infrastructure",
			Irreplaceable: &Irreplaceable{Loses: "delete the shoot's cloud infrastructure", Instead: "declare a new shoot"},
			Immutable:     []ImmutableField{{Path: ".spec.region"}}, // Gardener's Infrastructure in docs/api-reference/extensions.md
		},
		{
			Kind:          "Worker",
			Irreplaceable: &Irreplaceable{Loses: "delete every machine of the shoot", Instead: "declare a new shoot"},
			Immutable:     []ImmutableField{{Path: ".spec.region"}}, // Gardener's Worker in docs/api-reference/extensions.md
		},
		{Kind: "Bastion", Immutable: []ImmutableField{{Path: ".spec.userData"}}},                 // Gardener's Bastion in docs/api-reference/extensions.md
		{Kind: "ContainerRuntime", Immutable: []ImmutableField{{Path: ".spec.workerPool.name"}}}, // Gardener's ContainerRuntimeWorkerPool in docs/api-reference/extensions.md
		{
			Kind: "ControlPlane",
			Immutable: []ImmutableField{
				{Path: ".spec.purpose", When: BothSet}, // optional, Gardener's ControlPlane in docs/api-reference/extensions.md
				{Path: ".spec.region"},                 // Gardener's ControlPlane in docs/api-reference/extensions.md
			},
		},
		{
			Kind: "DNSRecord",
			Immutable: []ImmutableField{
				{Path: ".spec.name"},       // Gardener's DNSRecord in docs/api-reference/extensions.md
				{Path: ".spec.recordType"}, // Gardener's DNSRecord in docs/api-reference/extensions.md
			},
		},
		{
			Kind: "Network",
			Immutable: []ImmutableField{
				{Path: ".spec.podCIDR"},                   // Gardener's Network in docs/api-reference/extensions.md
				{Path: ".spec.serviceCIDR"},               // Gardener's Network in docs/api-reference/extensions.md
				{Path: ".spec.ipFamilies", When: BothSet}, // optional, Gardener's Network in docs/api-reference/extensions.md
			},
		},
		{Kind: "OperatingSystemConfig", Immutable: []ImmutableField{{Path: ".spec.purpose"}}}, // Gardener's OperatingSystemConfig in docs/api-reference/extensions.md
		{Kind: "Extension"},
	},
}
