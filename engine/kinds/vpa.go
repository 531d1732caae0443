package kinds

// verticalPodAutoscaling is autoscaling.k8s.io, the API of the Vertical Pod Autoscaler that every
// seed and garden runs (Gardener's "Autoscaling Specifics for Components"
// docs/development/autoscaling-specifics-for-components.md). Its VerticalPodAutoscalers are
// applied with the other policies of the workloads they size.
var verticalPodAutoscaling = Group{
	Name: "autoscaling.k8s.io",
	Kinds: []Rules{
		{Kind: "VerticalPodAutoscaler", Apply: WorkloadPolicies},
	},
}
