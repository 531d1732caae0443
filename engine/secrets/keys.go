package secrets

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"slices"
)

// KeyAlgorithm is the type of the private key of a CA or certificate.
type KeyAlgorithm string

// The key algorithms of CAs and certificates.
const (
	// KeyECDSAP256 is an ECDSA key on the NIST P-256 curve: about 128 bits of security, as much as
	// a 3072-bit RSA key, and generated in microseconds instead of a quarter of a second. Every
	// Kubernetes component, etcd, Istio and OpenVPN accept such keys (kubeadm offers them as its
	// encryption algorithm ECDSA-P256).
	KeyECDSAP256 KeyAlgorithm = "ecdsa-p256"
	// KeyRSA is an RSA key of Request.Length bits (default DefaultRSABits), the key type of
	// Gardener's own secrets manager.
	KeyRSA KeyAlgorithm = "rsa"
)

// KeyAlgorithms lists the key algorithms in a stable order, for validation and help texts.
func KeyAlgorithms() []KeyAlgorithm { return []KeyAlgorithm{KeyECDSAP256, KeyRSA} }

// newPrivateKey generates the private key of a CA or certificate and returns it with its PEM
// encoding: SEC 1 for ECDSA, PKCS #1 for RSA, the forms every Kubernetes component reads.
func newPrivateKey(req Request, random io.Reader) (crypto.Signer, []byte, error) {
	if req.KeyAlgorithm == KeyRSA {
		key, err := newRSAKey(random, req.Length)
		if err != nil {
			return nil, nil, err
		}
		return key, encodeRSAPrivateKey(key), nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), random)
	if err != nil {
		return nil, nil, fmt.Errorf("generating an ECDSA P-256 key: %w", err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding an ECDSA P-256 key: %w", err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: pemECPrivateKey, Bytes: der}), nil
}

// keyFits checks that key is of the algorithm (and for RSA the size) req asks for; keyName names
// the data key in the error, never the key itself.
func keyFits(req Request, key crypto.Signer, keyName string) error {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if req.KeyAlgorithm == KeyECDSAP256 && k.Curve == elliptic.P256() {
			return nil
		}
	case *rsa.PrivateKey:
		if req.KeyAlgorithm == KeyRSA && k.N.BitLen() == req.Length {
			return nil
		}
	}
	return fmt.Errorf("%s is not %s", keyName, req.keyDescription())
}

// keyDescription names the requested key for messages: "an ECDSA P-256 key", "a 3072-bit RSA key".
func (r Request) keyDescription() string {
	if r.KeyAlgorithm == KeyRSA {
		return fmt.Sprintf("a %d-bit RSA key", r.Length)
	}
	return "an ECDSA P-256 key"
}

// applyKeyDefaults settles the key algorithm of r. CAs and certificates are ECDSA P-256 unless
// they ask for RSA, which a Length (RSA bits) does too; rsa-key Secrets are RSA by their class.
// Other classes have no key algorithm.
func (r *Request) applyKeyDefaults() error {
	switch {
	case !r.Class.hasKey():
		if r.KeyAlgorithm != "" {
			return fmt.Errorf("%s: a key algorithm applies only to CAs, certificates and RSA keys", r)
		}
		return nil
	case r.KeyAlgorithm == "" && (r.Class == ClassRSAKey || r.Length != 0):
		r.KeyAlgorithm = KeyRSA
	case r.KeyAlgorithm == "":
		r.KeyAlgorithm = KeyECDSAP256
	case !slices.Contains(KeyAlgorithms(), r.KeyAlgorithm):
		return fmt.Errorf("%s: unknown key algorithm %q (one of %v)", r, r.KeyAlgorithm, KeyAlgorithms())
	}
	switch {
	case r.Class == ClassRSAKey && r.KeyAlgorithm != KeyRSA:
		return fmt.Errorf("%s: an rsa-key is always an RSA key", r)
	case r.KeyAlgorithm == KeyECDSAP256 && r.Length != 0:
		return fmt.Errorf("%s: a length (RSA bits) applies only to RSA keys, not to %s", r, KeyECDSAP256)
	case r.KeyAlgorithm == KeyRSA && r.Length == 0:
		r.Length = DefaultRSABits
	case r.KeyAlgorithm == KeyRSA && r.Length < MinRSABits:
		return fmt.Errorf("%s: length %d is below the minimum %d", r, r.Length, MinRSABits)
	}
	return nil
}
