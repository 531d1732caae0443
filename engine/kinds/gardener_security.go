package kinds

// gardenerSecurity is security.gardener.cloud. A CredentialsBinding's fields sit at the top
// level and are immutable (Gardener's CredentialsBinding in docs/api-reference/security.md).
var gardenerSecurity = Group{
	Name: "security.gardener.cloud",
	Kinds: []Rules{
		{
			Kind: "CredentialsBinding",
			Immutable: []ImmutableField{
				{Path: ".provider"},       // Gardener's CredentialsBinding in docs/api-reference/security.md
				{Path: ".credentialsRef"}, // Gardener's CredentialsBinding in docs/api-reference/security.md
				{Path: ".quotas"},         // Gardener's CredentialsBinding in docs/api-reference/security.md
			},
		},
		{Kind: "WorkloadIdentity"},
	},
}
