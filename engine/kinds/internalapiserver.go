package kinds

// internalAPIServer is internal.apiserver.k8s.io; its scope is known for charts that render it.
var internalAPIServer = Group{
	Name:    "internal.apiserver.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "StorageVersion", Scope: Cluster},
	},
}
