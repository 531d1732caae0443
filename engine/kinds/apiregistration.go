package kinds

// apiregistration holds the aggregator's APIServices: after the workloads serving them, and
// usable once Available.
var apiregistration = Group{
	Name:    "apiregistration.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "APIService", Scope: Cluster, Apply: APIServices, Readiness: APIServiceAvailable},
	},
}
