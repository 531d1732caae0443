package kinds

// istioNetworking is networking.istio.io, Istio's routing API through which control planes and
// exposure classes are reached, and the EnvoyFilters that tune the ingress gateways and route the
// reversed VPN. Its kinds get the defaults.
var istioNetworking = Group{
	Name: "networking.istio.io",
	Kinds: []Rules{
		{Kind: "DestinationRule"},
		{Kind: "EnvoyFilter"},
		{Kind: "Gateway"},
		{Kind: "VirtualService"},
	},
}
