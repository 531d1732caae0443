package kinds

// policy holds PodDisruptionBudgets, applied after the workloads they guard. A budget's
// selector has been mutable since Kubernetes 1.15, so it has no immutable field.
var policy = Group{
	Name:    "policy",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "PodDisruptionBudget", Apply: WorkloadPolicies},
		{Kind: "PodSecurityPolicy", Scope: Cluster},
	},
}
