package kinds

// networking is networking.k8s.io: Ingresses, NetworkPolicies (mutable as a whole, ready once they
// exist), and the cluster-scoped classes and addresses.
var networking = Group{
	Name:    "networking.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "Ingress"},
		{Kind: "NetworkPolicy"},
		{Kind: "IngressClass", Scope: Cluster},
		{Kind: "IPAddress", Scope: Cluster},
		{Kind: "ServiceCIDR", Scope: Cluster},
	},
}
