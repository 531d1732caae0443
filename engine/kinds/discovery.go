package kinds

// discovery holds EndpointSlices: the gardener_apiserver component renders the one of a
// selectorless Service that points at an IP address.
var discovery = Group{
	Name:    "discovery.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "EndpointSlice"},
	},
}
