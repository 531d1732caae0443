package secrets

import (
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"sync"
)

// Material is the data of a generated Secret, keyed as Class.DataKeys says. A CA's Material is
// what certificates signed by it take as Request.CA. The CA certificate and key are parsed on
// first use and kept, because one CA signs many certificates in a plan.
type Material struct {
	// Data is the Secret's data. Treat it as read-only: the parsed forms are cached.
	Data map[string][]byte

	mu     sync.Mutex
	parsed bool
	caCert *x509.Certificate
	caKey  crypto.Signer
	caErr  error
}

// NewMaterial wraps a Secret's data, for example a CA Secret read from the cluster. The map is
// copied, so later changes to data do not reach the Material.
func NewMaterial(data map[string][]byte) *Material { return &Material{Data: maps.Clone(data)} }

// CACertificate is the CA certificate under ca.crt.
func (m *Material) CACertificate() (*x509.Certificate, error) {
	cert, _, err := m.signer()
	return cert, err
}

// signer is the CA certificate and key of a CA Material, checked to be a CA whose key matches.
func (m *Material) signer() (*x509.Certificate, crypto.Signer, error) {
	if m == nil {
		return nil, nil, errors.New("no CA material")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.parsed {
		m.caCert, m.caKey, m.caErr = parseCA(m.Data)
		m.parsed = true
	}
	return m.caCert, m.caKey, m.caErr
}

// parseCA parses and checks the certificate and key of a CA Secret's data.
func parseCA(data map[string][]byte) (*x509.Certificate, crypto.Signer, error) {
	cert, err := parseCertificate(data, DataKeyCACert)
	if err != nil {
		return nil, nil, err
	}
	if !cert.IsCA || !cert.BasicConstraintsValid || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, nil, fmt.Errorf("%s: the certificate %q is not a CA", DataKeyCACert, cert.Subject.CommonName)
	}
	key, err := parsePrivateKey(data, DataKeyCAKey)
	if err != nil {
		return nil, nil, err
	}
	if err := keyMatches(cert, key, DataKeyCAKey); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}
