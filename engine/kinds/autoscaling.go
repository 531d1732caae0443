package kinds

// autoscaling holds HorizontalPodAutoscalers, applied after the workloads they scale.
var autoscaling = Group{
	Name:    "autoscaling",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "HorizontalPodAutoscaler", Apply: WorkloadPolicies},
	},
}
