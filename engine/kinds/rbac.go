package kinds

// rbac holds roles and their bindings: roles before the bindings that name them. A binding's
// roleRef is immutable (kubernetes/pkg/apis/rbac/validation as of Kubernetes 1.37).
var rbac = Group{
	Name:    "rbac.authorization.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "ClusterRole", Scope: Cluster, Apply: Roles},
		{Kind: "Role", Apply: Roles},
		{
			Kind: "ClusterRoleBinding", Scope: Cluster, Apply: RoleBindings,
			Immutable: []ImmutableField{{Path: ".roleRef"}},
		},
		{
			Kind: "RoleBinding", Apply: RoleBindings,
			Immutable: []ImmutableField{{Path: ".roleRef"}},
		},
	},
}
