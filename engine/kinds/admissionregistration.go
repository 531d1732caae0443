package kinds

// admissionregistration holds webhooks and admission policies. Webhooks go last: applied
// before the workloads that serve them, a failing-closed webhook would refuse everything after
// it.
var admissionregistration = Group{
	Name:    "admissionregistration.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "MutatingWebhookConfiguration", Scope: Cluster, Apply: Webhooks},
		{Kind: "ValidatingWebhookConfiguration", Scope: Cluster, Apply: Webhooks},
		{Kind: "ValidatingAdmissionPolicy", Scope: Cluster},
		{Kind: "ValidatingAdmissionPolicyBinding", Scope: Cluster},
		{Kind: "MutatingAdmissionPolicy", Scope: Cluster},
		{Kind: "MutatingAdmissionPolicyBinding", Scope: Cluster},
	},
}
