package secrets

import (
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// PEM block types written and read.
const (
	pemCertificate   = "CERTIFICATE"
	pemRSAPrivateKey = "RSA PRIVATE KEY" // PKCS #1, read by every Kubernetes component
	pemPrivateKey    = "PRIVATE KEY"     // PKCS #8, accepted when reading
	pemECPrivateKey  = "EC PRIVATE KEY"  // SEC 1, accepted when reading
	pemPublicKey     = "PUBLIC KEY"      // PKIX
)

// encodeCertificate is a DER certificate as PEM.
func encodeCertificate(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: der})
}

// encodeRSAPrivateKey is an RSA private key as PKCS #1 PEM.
func encodeRSAPrivateKey(key *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemRSAPrivateKey, Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// encodePublicKey is a public key as PKIX PEM.
func encodePublicKey(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encoding public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPublicKey, Bytes: der}), nil
}

// pemBlock is the single PEM block of the given type under data[key]. Errors name the key, never
// the content.
func pemBlock(data map[string][]byte, key string, types ...string) (*pem.Block, error) {
	raw, ok := data[key]
	if !ok || len(raw) == 0 {
		return nil, fmt.Errorf("%s is missing", key)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM block", key)
	}
	for _, t := range types {
		if block.Type == t {
			return block, nil
		}
	}
	return nil, fmt.Errorf("%s holds a PEM block of type %q, want %q", key, block.Type, types)
}

// parseCertificate is the certificate under data[key].
func parseCertificate(data map[string][]byte, key string) (*x509.Certificate, error) {
	return parsePublicPEM(data, key, pemCertificate, x509.ParseCertificate)
}

// parsePublicPEM is what parse reads from the PEM block of type blockType under data[key]. Only
// for public material (certificates, public keys): the parser's error, which may quote the
// bytes, is kept.
func parsePublicPEM[T any](data map[string][]byte, key, blockType string, parse func(der []byte) (T, error)) (T, error) {
	var zero T
	block, err := pemBlock(data, key, blockType)
	if err != nil {
		return zero, err
	}
	parsed, err := parse(block.Bytes)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", key, err)
	}
	return parsed, nil
}

// errUnparseableKey replaces the parsers' errors for private keys: an ASN.1 error may quote bytes
// of the key, and no secret value may reach an error or a plan.
var errUnparseableKey = errors.New("not a parseable private key")

// parsePrivateKey is the private key under data[key], in PKCS #1, PKCS #8 or SEC 1 form.
func parsePrivateKey(data map[string][]byte, key string) (crypto.Signer, error) {
	block, err := pemBlock(data, key, pemRSAPrivateKey, pemPrivateKey, pemECPrivateKey)
	if err != nil {
		return nil, err
	}
	var parsed any
	switch block.Type {
	case pemRSAPrivateKey:
		parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case pemECPrivateKey:
		parsed, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		parsed, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	signer, ok := parsed.(crypto.Signer)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s: %w", key, errUnparseableKey)
	}
	return signer, nil
}

// parsePublicKey is the PKIX public key under data[key].
func parsePublicKey(data map[string][]byte, key string) (crypto.PublicKey, error) {
	return parsePublicPEM(data, key, pemPublicKey, x509.ParsePKIXPublicKey)
}

// publicKeyEqual is the Equal method every standard library public key has.
type publicKeyEqual interface{ Equal(crypto.PublicKey) bool }

// keyMatches checks that key is the private key of cert.
func keyMatches(cert *x509.Certificate, key crypto.Signer, keyName string) error {
	pub, ok := key.Public().(publicKeyEqual)
	if !ok || !pub.Equal(cert.PublicKey) {
		return fmt.Errorf("%s does not belong to the certificate %q", keyName, cert.Subject.CommonName)
	}
	return nil
}
