package localcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// credentials are the secrets one control plane needs: a CA that signs the API server's serving
// certificate (and is trusted by every client), the service-account signing key pair, and a bearer
// token for the admin user. They are generated fresh for every control plane, so nothing secret is
// ever committed or shared between runs.
type credentials struct {
	caCertPEM      []byte
	caKeyPEM       []byte
	servingCertPEM []byte
	servingKeyPEM  []byte
	saPublicPEM    []byte
	saPrivatePEM   []byte
	adminToken     string
}

// serviceClusterIPRange is the Service CIDR of every local control plane; its first address is the
// in-cluster `kubernetes` Service and must be a SAN of the serving certificate.
const (
	serviceClusterIPRange = "10.96.0.0/16"
	kubernetesServiceIP   = "10.96.0.1"
	// podCIDR is where kwok takes pod IPs from; large enough for benchmark-sized landscapes.
	podCIDR = "10.64.0.0/12"
)

// newCredentials generates the PKI of one control plane. ECDSA P-256 keeps generation in the
// millisecond range, which matters when tests start several control planes.
func newCredentials(now time.Time) (*credentials, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "localcluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	servingTemplate := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{
			"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local",
		},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesServiceIP)},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTemplate, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("service-account key: %w", err)
	}

	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("admin token: %w", err)
	}

	c := &credentials{
		caCertPEM:      pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		servingCertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER}),
		adminToken:     hex.EncodeToString(token),
	}
	if c.caKeyPEM, err = ecPrivateKeyPEM(caKey); err != nil {
		return nil, err
	}
	if c.servingKeyPEM, err = ecPrivateKeyPEM(servingKey); err != nil {
		return nil, err
	}
	if c.saPrivatePEM, err = ecPrivateKeyPEM(saKey); err != nil {
		return nil, err
	}
	saPublicDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("service-account public key: %w", err)
	}
	c.saPublicPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPublicDER})
	return c, nil
}

// pkiFiles are the paths the control plane binaries read the credentials from.
type pkiFiles struct {
	caCert, caKey, servingCert, servingKey, saPublic, saPrivate, tokens string
}

// write stores the credentials under dir with owner-only permissions.
func (c *credentials) write(dir string) (pkiFiles, error) {
	f := pkiFiles{
		caCert:      filepath.Join(dir, "ca.crt"),
		caKey:       filepath.Join(dir, "ca.key"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saPublic:    filepath.Join(dir, "sa.pub"),
		saPrivate:   filepath.Join(dir, "sa.key"),
		tokens:      filepath.Join(dir, "tokens.csv"),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, fmt.Errorf("pki directory: %w", err)
	}
	// The token file format is token,user,uid,"group1,group2"; system:masters makes the user admin.
	tokens := []byte(fmt.Sprintf("%s,admin,admin,\"system:masters\"\n", c.adminToken))
	for path, data := range map[string][]byte{
		f.caCert: c.caCertPEM, f.caKey: c.caKeyPEM, f.servingCert: c.servingCertPEM,
		f.servingKey: c.servingKeyPEM, f.saPublic: c.saPublicPEM, f.saPrivate: c.saPrivatePEM,
		f.tokens: tokens,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return f, fmt.Errorf("pki file %s: %w", filepath.Base(path), err)
		}
	}
	return f, nil
}

func ecPrivateKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func randomSerial() *big.Int {
	limit := new(big.Int).Lsh(big.NewInt(1), 126)
	n, err := rand.Int(rand.Reader, limit)
	if err != nil {
		// crypto/rand does not fail on Linux; a fixed serial is still a valid certificate.
		return big.NewInt(1)
	}
	return n.Add(n, big.NewInt(1))
}
