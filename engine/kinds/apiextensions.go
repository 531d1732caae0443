package kinds

// apiextensions holds CustomResourceDefinitions: applied first, since custom resources can
// only be written once their kind is served, and protected, since deleting a CRD deletes every
// object of its kind. Its group and plural are always immutable (they make the object's name);
// its scope and kind only once it is Established
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation as of Kubernetes 1.37).
var apiextensions = Group{
	Name:    "apiextensions.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "CustomResourceDefinition", Scope: Cluster, Apply: Definitions, Readiness: CRDEstablished,
			Protected: always,
			Immutable: []ImmutableField{
				{Path: ".spec.group"},
				{Path: ".spec.names.plural"},
				{Path: ".spec.names.kind", When: LiveEstablished},
				{Path: ".spec.scope", When: LiveEstablished},
			},
		},
	},
}
