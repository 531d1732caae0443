package kinds

// node is node.k8s.io; its scope is known for charts that render it.
var node = Group{
	Name:    "node.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "RuntimeClass", Scope: Cluster},
	},
}
