package kinds

// scheduling holds PriorityClasses: before the workloads that name them, with an immutable
// value and preemption policy (kubernetes/pkg/apis/scheduling/validation as of Kubernetes 1.37).
var scheduling = Group{
	Name:    "scheduling.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "PriorityClass", Scope: Cluster, Apply: Classes,
			Immutable: []ImmutableField{{Path: ".value"}, {Path: ".preemptionPolicy"}},
		},
	},
}
