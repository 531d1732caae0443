package kinds

// resource is dynamic resource allocation (resource.k8s.io); its scope is known for charts that
// render it.
var resource = Group{
	Name:    "resource.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "DeviceClass", Scope: Cluster},
		{Kind: "ResourceSlice", Scope: Cluster},
	},
}
