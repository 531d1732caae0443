package kinds

// istioNetworking is networking.istio.io, Istio's routing API through which control planes and
// exposure classes are reached. Its kinds get the defaults.
var istioNetworking = Group{
	Name: "networking.istio.io",
	Kinds: []Rules{
		{Kind: "DestinationRule"},
		{Kind: "Gateway"},
		{Kind: "VirtualService"},
	},
}
