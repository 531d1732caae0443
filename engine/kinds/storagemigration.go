package kinds

// storageMigration is storagemigration.k8s.io; its scope is known for charts that render it.
var storageMigration = Group{
	Name:    "storagemigration.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "StorageVersionMigration", Scope: Cluster},
	},
}
