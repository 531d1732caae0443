package kinds

// gardenerOperator is operator.gardener.cloud, gardener-operator's API in the runtime cluster.
// gardener-operator's webhook refuses to delete a Garden without the deletion confirmation
// (Gardener's "Gardener Operator" docs/concepts/operator.md, "Webhooks").
var gardenerOperator = Group{
	Name: "operator.gardener.cloud",
	Kinds: []Rules{
		{
			Kind: "Garden", Scope: Cluster, Readiness: GardenReady, ConfirmDeletion: true,
			Irreplaceable: &Irreplaceable{Loses: "delete the garden with its virtual garden and everything in it", Instead: "declare a new garden"},
			Immutable: []ImmutableField{
				{Path: ".spec.runtimeCluster.networking.pods"},                 // RuntimeNetworking Gardener's RuntimeNetworking in docs/api-reference/operator.md
				{Path: ".spec.runtimeCluster.networking.services"},             // Gardener's RuntimeNetworking in docs/api-reference/operator.md
				{Path: ".spec.runtimeCluster.networking.nodes", When: BothSet}, // optional, Gardener's RuntimeNetworking in docs/api-reference/operator.md
				{Path: ".spec.virtualCluster.networking.services"},             // Networking Gardener's Networking in docs/api-reference/operator.md
				{Path: ".spec.virtualCluster.gardener.clusterIdentity"},        // Gardener Gardener's Gardener in docs/api-reference/operator.md
				{Path: ".spec.virtualCluster.etcd.main.backup.provider"},       // Backup (on ETCDMain) Gardener's Backup in docs/api-reference/operator.md
				{Path: ".spec.virtualCluster.dns.domains[0].name"},             // "the first given domain", Gardener's DNS in docs/api-reference/operator.md
			},
		},
		{Kind: "Extension", Scope: Cluster},
	},
}
