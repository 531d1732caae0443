package kinds

// apps holds the workloads; their selectors and a StatefulSet's identity are immutable
// (kubernetes/pkg/apis/apps/validation as of Kubernetes 1.37).
var apps = Group{
	Name:    "apps",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "Deployment", Apply: Workloads, Readiness: DeploymentRollout,
			Immutable: []ImmutableField{{Path: ".spec.selector"}},
		},
		{
			Kind: "StatefulSet", Apply: Workloads, Readiness: StatefulSetRollout,
			Immutable: []ImmutableField{
				{Path: ".spec.selector"},
				{Path: ".spec.serviceName"},
				{Path: ".spec.volumeClaimTemplates"},
				{Path: ".spec.podManagementPolicy"},
			},
		},
		{
			Kind: "DaemonSet", Apply: Workloads, Readiness: DaemonSetRollout,
			Immutable: []ImmutableField{{Path: ".spec.selector"}},
		},
		{Kind: "ReplicaSet", Immutable: []ImmutableField{{Path: ".spec.selector"}}},
	},
}
