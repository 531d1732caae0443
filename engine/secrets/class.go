package secrets

import "slices"

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
	// which authenticates the VPN tunnel between a shoot's control plane and its nodes (S4:23739,
	// key vpn.tlsauth at S4:26793). Gardener never rotates it (S4:23739); `--rotate vpn-tlsauth`
	// replaces it at once, and the tunnel is down until both ends run with the new key.
	ClassVPNTLSAuth Class = "vpn-tlsauth"
)

// Classes lists every class in a stable order, for validating `--rotate` and for help texts.
func Classes() []Class {
	return []Class{ClassCA, ClassServerCert, ClassClientCert, ClassRSAKey, ClassToken, ClassPassword, ClassEncryptionConfig, ClassVPNTLSAuth}
}

// Valid reports whether c is one of Classes.
func (c Class) Valid() bool { return slices.Contains(Classes(), c) }

// Data keys of the generated Secrets. They are exported so that components mounting a generated
// Secret name its keys through these constants instead of repeating string literals. The CA and
// certificate keys are the ones Gardener's secrets manager uses (its data-key table, S4:26786-26787
// of the seed documents; the digest summarises that section at lines 587 and 491). Gardener keys an
// RSA key pair as id_rsa/id_rsa.pub (S4:26791, digest line 607 for the SSH key pair); gardener
// uses key.pem/pub.pem instead, because its RSA keys are PEM signing keys, not SSH keys.
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
	// for its VPN TLS auth secrets (S4:26793).
	DataKeyVPNTLSAuth = "vpn.tlsauth"
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
	}
	return nil
}

// SecretType is the Kubernetes Secret type of class c: kubernetes.io/tls for server and client
// certificates (which need tls.crt and tls.key, both present), Opaque for everything else. A CA
// is Opaque because its key is under ca.key, not tls.key.
func (c Class) SecretType() string {
	if c.isLeafCertificate() {
		return "kubernetes.io/tls"
	}
	return "Opaque"
}

// isLeafCertificate reports whether c is a certificate signed by a CA.
func (c Class) isLeafCertificate() bool { return c == ClassServerCert || c == ClassClientCert }

// expires reports whether material of class c has a validity and is renewed before its end.
// Keys (OpenVPN static keys too), tokens and passwords carry no expiry; like Gardener's
// service-account key, they change only when rotated on request (digest line 574: "No
// auto-rotation of these").
func (c Class) expires() bool { return c == ClassCA || c.isLeafCertificate() }

// usesRSA reports whether Request.Length is the bit size of an RSA key for class c (otherwise it
// is a number of characters).
func (c Class) usesRSA() bool { return c == ClassCA || c == ClassRSAKey || c.isLeafCertificate() }
