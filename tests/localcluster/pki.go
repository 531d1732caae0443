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

	frontProxyCACertPEM      []byte
	frontProxyClientCertPEM  []byte
	frontProxyClientKeyPEM   []byte
	gardenerAPIServerCertPEM []byte
	gardenerAPIServerKeyPEM  []byte
	admissionCertPEM         []byte
	admissionKeyPEM          []byte
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
	caCert, caKey, caPEM, err := newCA(now, "localcluster-ca")
	if err != nil {
		return nil, err
	}
	c := &credentials{caCertPEM: caPEM}
	if c.caKeyPEM, err = ecPrivateKeyPEM(caKey); err != nil {
		return nil, err
	}
	if c.servingCertPEM, c.servingKeyPEM, err = issue(now, caCert, caKey, "kube-apiserver", x509.ExtKeyUsageServerAuth,
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesServiceIP)}); err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	// The aggregation layer: kube-apiserver proxies requests for an APIService with this client
	// certificate, and the aggregated server trusts the user it names in X-Remote-User only when
	// the certificate chains to the request-header CA (Kubernetes' "Configure the Aggregation
	// Layer" task). A CA of its own, as kubeadm does, so that no other client certificate of the
	// plane can pose as the proxy.
	if c.frontProxyCACertPEM, c.frontProxyClientCertPEM, c.frontProxyClientKeyPEM, err = frontProxyPKI(now); err != nil {
		return nil, err
	}
	// gardener-apiserver's serving certificate: the aggregator checks it against the name of the
	// APIService's Service (<name>.<namespace>.svc) and the plane CA as caBundle.
	if c.gardenerAPIServerCertPEM, c.gardenerAPIServerKeyPEM, err = issue(now, caCert, caKey, gardenerAPIServerService, x509.ExtKeyUsageServerAuth,
		[]string{"localhost", gardenerAPIServerService + "." + gardenerAPIServerNamespace + ".svc",
			gardenerAPIServerService + "." + gardenerAPIServerNamespace + ".svc.cluster.local"},
		[]net.IP{net.ParseIP("127.0.0.1")}); err != nil {
		return nil, fmt.Errorf("gardener-apiserver serving certificate: %w", err)
	}
	// gardener-admission-controller's, checked by kube-apiserver against its webhooks' Service.
	if c.admissionCertPEM, c.admissionKeyPEM, err = issue(now, caCert, caKey, gardenerAdmissionControllerService, x509.ExtKeyUsageServerAuth,
		[]string{"localhost", gardenerAdmissionControllerService + "." + gardenerAPIServerNamespace + ".svc"},
		[]net.IP{net.ParseIP("127.0.0.1")}); err != nil {
		return nil, fmt.Errorf("gardener-admission-controller serving certificate: %w", err)
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("service-account key: %w", err)
	}

	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("admin token: %w", err)
	}

	c.adminToken = hex.EncodeToString(token)
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

// frontProxyClientName is the common name of the aggregation layer's client certificate, the one
// name --requestheader-allowed-names admits.
const frontProxyClientName = "front-proxy-client"

// frontProxyPKI creates the request-header CA and the front proxy's client certificate.
func frontProxyPKI(now time.Time) (caPEM, certPEM, keyPEM []byte, err error) {
	ca, key, caPEM, err := newCA(now, "localcluster-front-proxy-ca")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("front-proxy %w", err)
	}
	certPEM, keyPEM, err = issue(now, ca, key, frontProxyClientName, x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("front-proxy client certificate: %w", err)
	}
	return caPEM, certPEM, keyPEM, nil
}

// newCA creates a self-signed CA valid for ten years.
func newCA(now time.Time, commonName string) (*x509.Certificate, *ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ca key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ca certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ca certificate: %w", err)
	}
	return ca, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// issue creates a key pair and a certificate for it, valid for a year, signed by the CA.
func issue(now time.Time, ca *x509.Certificate, caKey *ecdsa.PrivateKey, commonName string, usage x509.ExtKeyUsage,
	dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("certificate: %w", err)
	}
	if keyPEM, err = ecPrivateKeyPEM(key); err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

// pkiFiles are the paths the control plane binaries read the credentials from.
type pkiFiles struct {
	caCert, caKey, servingCert, servingKey, saPublic, saPrivate, tokens string
	frontProxyCACert, frontProxyClientCert, frontProxyClientKey         string
	gardenerAPIServerCert, gardenerAPIServerKey                         string
	// gardenerAdmissionControllerCertDir holds tls.crt and tls.key, as its webhook server wants.
	gardenerAdmissionControllerCertDir string
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

		frontProxyCACert:      filepath.Join(dir, "front-proxy-ca.crt"),
		frontProxyClientCert:  filepath.Join(dir, "front-proxy-client.crt"),
		frontProxyClientKey:   filepath.Join(dir, "front-proxy-client.key"),
		gardenerAPIServerCert: filepath.Join(dir, "gardener-apiserver.crt"),
		gardenerAPIServerKey:  filepath.Join(dir, "gardener-apiserver.key"),

		gardenerAdmissionControllerCertDir: filepath.Join(dir, "gardener-admission-controller"),
	}
	if err := os.MkdirAll(f.gardenerAdmissionControllerCertDir, 0o700); err != nil {
		return f, fmt.Errorf("pki directory: %w", err)
	}
	// The token file format is token,user,uid,"group1,group2"; system:masters makes the user admin.
	tokens := []byte(fmt.Sprintf("%s,admin,admin,\"system:masters\"\n", c.adminToken))
	for path, data := range map[string][]byte{
		f.caCert: c.caCertPEM, f.caKey: c.caKeyPEM, f.servingCert: c.servingCertPEM,
		f.servingKey: c.servingKeyPEM, f.saPublic: c.saPublicPEM, f.saPrivate: c.saPrivatePEM,
		f.tokens: tokens, f.frontProxyCACert: c.frontProxyCACertPEM, f.frontProxyClientCert: c.frontProxyClientCertPEM,
		f.frontProxyClientKey: c.frontProxyClientKeyPEM, f.gardenerAPIServerCert: c.gardenerAPIServerCertPEM,
		f.gardenerAPIServerKey: c.gardenerAPIServerKeyPEM,
		filepath.Join(f.gardenerAdmissionControllerCertDir, "tls.crt"): c.admissionCertPEM,
		filepath.Join(f.gardenerAdmissionControllerCertDir, "tls.key"): c.admissionKeyPEM,
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
