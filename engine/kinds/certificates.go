package kinds

// certificates is certificates.k8s.io; the engine renders none of it, its scope is known for
// charts that do.
var certificates = Group{
	Name:    "certificates.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{Kind: "CertificateSigningRequest", Scope: Cluster},
		{Kind: "ClusterTrustBundle", Scope: Cluster},
	},
}
