package render

// Data keys of the Secrets the engine generates (SecretSpec, engine/secrets). They are part of
// the render contract so that components mounting a generated Secret name its keys through these
// constants instead of repeating string literals. The CA and
// certificate keys are the ones Gardener's secrets manager uses (its data-key table, Gardener's
// docs/development/secrets_management.md). Gardener keys an RSA key pair as id_rsa/id_rsa.pub
// (Gardener's docs/usage/shoot-operations/shoot_credentials_rotation.md for the SSH key pair);
// gardener uses key.pem/pub.pem instead, because its RSA keys are PEM signing keys, not SSH keys.
const (
	// DataKeyCACert holds the PEM CA certificate: the CA itself in a CA Secret, the signing CA in a
	// certificate Secret (so a client of the server can verify it from the same Secret).
	DataKeyCACert = "ca.crt"
	// DataKeyCAKey holds the CA's PEM private key. Only CA Secrets carry it.
	DataKeyCAKey = "ca.key"
	// DataKeyCert holds the PEM certificate of a server or client certificate.
	DataKeyCert = "tls.crt"
	// DataKeyKey holds the PEM private key of a server or client certificate.
	DataKeyKey = "tls.key"
	// DataKeyPrivateKey holds the PEM (PKCS #1) private key of an rsa-key Secret.
	DataKeyPrivateKey = "key.pem"
	// DataKeyPublicKey holds the PEM (PKIX) public key of an rsa-key Secret, for the verifying
	// side (kube-apiserver's service-account key file accepts either).
	DataKeyPublicKey = "pub.pem"
	// DataKeyToken holds a token.
	DataKeyToken = "token"
	// DataKeyPassword holds a password.
	DataKeyPassword = "password"
	// DataKeyVPNTLSAuth holds an OpenVPN static key, under the key Gardener's secrets manager uses
	// for its VPN TLS auth secrets (Gardener's docs/development/secrets_management.md).
	DataKeyVPNTLSAuth = "vpn.tlsauth"

	// The keys of a bootstrap token Secret, as Kubernetes defines them (Gardener's
	// docs/deployment/deploy_gardenlet_manually.md). Only DataKeyTokenSecret is secret; the token id
	// is part of the Secret's name.

	// DataKeyTokenID holds the token id, the six characters after bootstrap-token- in the name.
	DataKeyTokenID = "token-id"
	// DataKeyTokenSecret holds the token secret, 16 lower-case letters and digits. The bearer
	// token a client presents is "<token-id>.<token-secret>".
	DataKeyTokenSecret = "token-secret"
	// DataKeyUsageBootstrapAuthentication is "true": the token authenticates to the API server.
	DataKeyUsageBootstrapAuthentication = "usage-bootstrap-authentication"
	// DataKeyUsageBootstrapSigning is "true": the token may sign the cluster-info ConfigMap.
	DataKeyUsageBootstrapSigning = "usage-bootstrap-signing"
	// DataKeyDescription holds a human-readable description of the token.
	DataKeyDescription = "description"
	// DataKeyAuthExtraGroups holds the comma-separated groups, each system:bootstrappers:...,
	// a token authenticates as besides system:bootstrappers. Present only when requested.
	DataKeyAuthExtraGroups = "auth-extra-groups"
)
