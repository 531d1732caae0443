package secrets

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Class is the kind of secret material a request asks for. It decides the data keys, the Secret
// type and whether the material expires, and it is the unit of `gardener apply --rotate`, so that
// an operator can rotate, say, every CA of a landscape without naming each Secret.
type Class string

// The classes of generated secrets.
const (
	// ClassCA is a self-signed certificate authority that signs server and client certificates.
	ClassCA Class = "ca"
	// ClassServerCert is a serving certificate (extended key usage server auth) signed by a CA.
	ClassServerCert Class = "server-cert"
	// ClassClientCert is a client certificate (extended key usage client auth) signed by a CA; its
	// organizations are the Kubernetes groups of the client.
	ClassClientCert Class = "client-cert"
	// ClassRSAKey is a bare RSA key pair, for example a service-account signing key.
	ClassRSAKey Class = "rsa-key"
	// ClassToken is a random bearer token.
	ClassToken Class = "token"
	// ClassPassword is a random password.
	ClassPassword Class = "password"
	// ClassEncryptionConfig is an EncryptionConfiguration with a random AES key for the resources
	// an API server encrypts in etcd. Its key is never thrown away: a change of the resources
	// keeps it, and rotation puts a new key first while the old ones still decrypt.
	ClassEncryptionConfig Class = "encryption-config"
	// ClassVPNTLSAuth is the OpenVPN static key vpn-seed-server and vpn-shoot share for tls-auth,
	// which authenticates the VPN tunnel between a shoot's control plane and its nodes (Gardener's
	// "Shoot Credentials Rotation" docs/usage/shoot-operations/shoot_credentials_rotation.md, key
	// vpn.tlsauth at Gardener's "Secrets Management" docs/development/secrets_management.md). Gardener
	// never rotates it (Gardener's docs/usage/shoot-operations/shoot_credentials_rotation.md);
	// `--rotate vpn-tlsauth` replaces it at once, and the tunnel is down until both ends run with the
	// new key.
	ClassVPNTLSAuth Class = "vpn-tlsauth"
	// ClassBootstrapToken is a Kubernetes bootstrap token, the credential of gardenlet's TLS
	// bootstrap: gardenlet authenticates with it as a member of system:bootstrappers and creates
	// the CertificateSigningRequest for its client certificate (Gardener's "Gardener Controller
	// Manager" docs/concepts/controller-manager.md, the token Secret at Gardener's "Deploy Gardenlet
	// Manually" docs/deployment/deploy_gardenlet_manually.md). The Secret's name must be
	// bootstrap-token-<token id>, and the API server reads bootstrap tokens only from kube-system. The
	// token never expires and is not renewed by age: its consumer is done with it once bootstrapped;
	// `--rotate bootstrap-token` issues a new token secret under the same id.
	ClassBootstrapToken Class = "bootstrap-token"
)

// Classes lists every class in a stable order, for validating `--rotate` and for help texts.
func Classes() []Class {
	return []Class{ClassCA, ClassServerCert, ClassClientCert, ClassRSAKey, ClassToken, ClassPassword, ClassEncryptionConfig, ClassVPNTLSAuth, ClassBootstrapToken}
}

// Valid reports whether c is one of Classes.
func (c Class) Valid() bool { return slices.Contains(Classes(), c) }

// Data keys of the generated Secrets: the render contract's (engine/render), which components
// name them by.
const (
	DataKeyCACert                       = render.DataKeyCACert
	DataKeyCAKey                        = render.DataKeyCAKey
	DataKeyCert                         = render.DataKeyCert
	DataKeyKey                          = render.DataKeyKey
	DataKeyPrivateKey                   = render.DataKeyPrivateKey
	DataKeyPublicKey                    = render.DataKeyPublicKey
	DataKeyToken                        = render.DataKeyToken
	DataKeyPassword                     = render.DataKeyPassword
	DataKeyVPNTLSAuth                   = render.DataKeyVPNTLSAuth
	DataKeyTokenID                      = render.DataKeyTokenID
	DataKeyTokenSecret                  = render.DataKeyTokenSecret
	DataKeyUsageBootstrapAuthentication = render.DataKeyUsageBootstrapAuthentication
	DataKeyUsageBootstrapSigning        = render.DataKeyUsageBootstrapSigning
	DataKeyDescription                  = render.DataKeyDescription
	DataKeyAuthExtraGroups              = render.DataKeyAuthExtraGroups
)

// DataKeys lists the keys a Secret of class c holds, in sorted order.
func (c Class) DataKeys() []string {
	switch c {
	case ClassCA:
		return []string{DataKeyCACert, DataKeyCAKey}
	case ClassServerCert, ClassClientCert:
		return []string{DataKeyCACert, DataKeyCert, DataKeyKey}
	case ClassRSAKey:
		return []string{DataKeyPrivateKey, DataKeyPublicKey}
	case ClassToken:
		return []string{DataKeyToken}
	case ClassPassword:
		return []string{DataKeyPassword}
	case ClassEncryptionConfig:
		return []string{DataKeyEncryptionConfig}
	case ClassVPNTLSAuth:
		return []string{DataKeyVPNTLSAuth}
	case ClassBootstrapToken: // auth-extra-groups only when the request names extra groups
		return []string{DataKeyAuthExtraGroups, DataKeyDescription, DataKeyTokenID, DataKeyTokenSecret,
			DataKeyUsageBootstrapAuthentication, DataKeyUsageBootstrapSigning}
	}
	return nil
}

// SensitiveDataKeys lists the keys of DataKeys whose values are secret, in sorted order: private
// keys, tokens, passwords and the like, which plans and messages must never show. The others
// are public (certificates, public keys) or plain configuration (a bootstrap token's id, usages,
// description and groups), and redacting them would hide harmless text wherever it occurs (a
// bootstrap token's "true" is in countless objects).
func (c Class) SensitiveDataKeys() []string {
	switch c {
	case ClassCA:
		return []string{DataKeyCAKey}
	case ClassServerCert, ClassClientCert:
		return []string{DataKeyKey}
	case ClassRSAKey:
		return []string{DataKeyPrivateKey}
	case ClassBootstrapToken:
		return []string{DataKeyTokenSecret}
	}
	return c.DataKeys() // tokens, passwords, encryption configurations, OpenVPN static keys
}

// SecretType is the Kubernetes Secret type of class c: kubernetes.io/tls for server and client
// certificates (which need tls.crt and tls.key, both present), bootstrap.kubernetes.io/token for
// bootstrap tokens (the API server's bootstrap authenticator ignores Secrets of any other type,
// Gardener's docs/deployment/deploy_gardenlet_manually.md), Opaque for everything else. A CA is
// Opaque because its key is under ca.key, not tls.key. The type of a Secret cannot change once
// created: a live Secret of another type is replaced, as the plan's immutable-field rule for Secret
// .type says.
func (c Class) SecretType() string {
	switch {
	case c.isLeafCertificate():
		return string(corev1.SecretTypeTLS)
	case c == ClassBootstrapToken:
		return string(corev1.SecretTypeBootstrapToken)
	}
	return string(corev1.SecretTypeOpaque)
}

// isLeafCertificate reports whether c is a certificate signed by a CA.
func (c Class) isLeafCertificate() bool { return c == ClassServerCert || c == ClassClientCert }

// expires reports whether material of class c has a validity and is renewed before its end.
// Keys (OpenVPN static keys too), tokens (bootstrap tokens too, which get no expiration key)
// and passwords carry no expiry; like Gardener's service-account key, they change only when
// rotated on request (Gardener's docs/usage/shoot-operations/shoot_credentials_rotation.md).
func (c Class) expires() bool { return c == ClassCA || c.isLeafCertificate() }

// hasKey reports whether material of class c is built around a private key, whose algorithm is
// Request.KeyAlgorithm (and whose Length, for RSA, is its size in bits rather than a number of
// characters).
func (c Class) hasKey() bool { return c == ClassCA || c == ClassRSAKey || c.isLeafCertificate() }
