package kinds

// flowcontrol is API priority and fairness (flowcontrol.apiserver.k8s.io); its scope is known
// for charts that render it.
var flowcontrol = Group{
	Name:    "flowcontrol.apiserver.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "FlowSchema", Scope: Cluster},
		{Kind: "PriorityLevelConfiguration", Scope: Cluster},
	},
}
