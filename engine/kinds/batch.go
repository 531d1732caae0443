package kinds

// batch holds Jobs and CronJobs (kubernetes/pkg/apis/batch/validation as of Kubernetes 1.37).
var batch = Group{
	Name:    "batch",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "Job", Apply: Workloads, Readiness: JobComplete,
			Immutable: []ImmutableField{
				{Path: ".spec.selector"},
				{Path: ".spec.template"},
				{Path: ".spec.completionMode"},
			},
		},
		{Kind: "CronJob", Apply: Workloads},
	},
}
