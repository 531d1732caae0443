package secrets

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// serialBits is the size of certificate serial numbers: random, positive and below 2^127, so
// that the DER integer fits the 20 octets RFC 5280 allows.
const serialBits = 127

// newRSAKey generates an RSA key of the given size. Since Go 1.26 rsa.GenerateKey ignores its
// reader and always uses the system's secure source (unless GODEBUG=cryptocustomrand=1); tests
// wanting reproducible keys use testing/cryptotest.SetGlobalRandom. The reader is still passed,
// so that the GODEBUG setting keeps working.
func newRSAKey(random io.Reader, bits int) (*rsa.PrivateKey, error) {
	var key *rsa.PrivateKey
	var err error
	if prefetch.Load() && random == rand.Reader {
		key, err = poolFor(bits).get()
	} else {
		key, err = rsa.GenerateKey(random, bits)
	}
	if err != nil {
		return nil, fmt.Errorf("generating a %d-bit RSA key: %w", bits, err)
	}
	return key, nil
}

// prefetch is set by PrefetchKeys.
var prefetch atomic.Bool

// PrefetchKeys makes RSA key generation run ahead of demand on every core. A 3072-bit key takes
// a quarter of a second or more, and a landscape's first plan generates one for every
// service-account key (and for every CA and certificate that asks for RSA) one after the other
// while rendering: with keys generated in parallel in the background, rendering waits for them a
// fraction of that time. At most twice GOMAXPROCS keys are generated and not
// used. The command enables it; tests that need reproducible keys
// (testing/cryptotest.SetGlobalRandom) do not.
func PrefetchKeys() { prefetch.Store(true) }

// keyPool keeps keys of one size ready: GOMAXPROCS goroutines, started on first use, generate
// keys into a buffer of as many.
type keyPool struct {
	bits  int
	start sync.Once
	keys  chan pooledKey
}

type pooledKey struct {
	key *rsa.PrivateKey
	err error
}

var pools sync.Map // bits -> *keyPool

func poolFor(bits int) *keyPool {
	p, _ := pools.LoadOrStore(bits, &keyPool{bits: bits, keys: make(chan pooledKey, runtime.GOMAXPROCS(0))})
	return p.(*keyPool)
}

func (p *keyPool) get() (*rsa.PrivateKey, error) {
	p.start.Do(func() {
		for range runtime.GOMAXPROCS(0) {
			go p.fill()
		}
	})
	k := <-p.keys
	return k.key, k.err
}

func (p *keyPool) fill() {
	for {
		key, err := rsa.GenerateKey(rand.Reader, p.bits)
		p.keys <- pooledKey{key: key, err: err}
	}
}

// serialNumber draws a certificate serial number from random, which the caller's reader does
// control: a deterministic reader yields deterministic serial numbers.
func serialNumber(random io.Reader) (*big.Int, error) {
	n, err := rand.Int(random, new(big.Int).Lsh(big.NewInt(1), serialBits))
	if err != nil {
		return nil, fmt.Errorf("drawing a serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil // never zero
}

// newKeyAndTemplate starts every certificate, CA or leaf: a new private key of req's algorithm
// (with its PEM form) and the template of the parts common to both: subject, serial, valid basic
// constraints and a validity from now minus ClockSkew to now plus the requested validity. The key
// is drawn from random before the serial number.
func newKeyAndTemplate(req Request, now time.Time, random io.Reader) (crypto.Signer, []byte, *x509.Certificate, error) {
	key, keyPEM, err := newPrivateKey(req, random)
	if err != nil {
		return nil, nil, nil, err
	}
	serial, err := serialNumber(random)
	if err != nil {
		return nil, nil, nil, err
	}
	now = now.UTC().Truncate(time.Second) // certificates carry seconds; keep the annotations equal
	return key, keyPEM, &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: req.CommonName, Organization: req.Organization},
		NotBefore:             now.Add(-ClockSkew),
		NotAfter:              now.Add(req.Validity),
		BasicConstraintsValid: true,
	}, nil
}

// newCA generates a self-signed CA: ca.crt and ca.key.
func newCA(req Request, now time.Time, random io.Reader) (map[string][]byte, error) {
	key, keyPEM, tmpl, err := newKeyAndTemplate(req, now, random)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(random, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("signing the CA certificate: %w", err)
	}
	return map[string][]byte{DataKeyCACert: encodeCertificate(der), DataKeyCAKey: keyPEM}, nil
}

// newLeafCertificate generates a server or client certificate signed by req.CA: tls.crt, tls.key
// and the CA's ca.crt.
func newLeafCertificate(req Request, now time.Time, random io.Reader) (map[string][]byte, error) {
	caCert, caKey, err := req.CA.signer()
	if err != nil {
		return nil, fmt.Errorf("signing CA: %w", err)
	}
	key, keyPEM, tmpl, err := newKeyAndTemplate(req, now, random)
	if err != nil {
		return nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if req.KeyAlgorithm == KeyRSA {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment // RSA key exchange; ECDSA keys only sign
	}
	if req.Class == ClassServerCert {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames = req.DNSNames
		for _, s := range req.IPAddresses {
			tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(s)) // validated by normalize
		}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(random, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the certificate: %w", err)
	}
	return map[string][]byte{
		DataKeyCert:   encodeCertificate(der),
		DataKeyKey:    keyPEM,
		DataKeyCACert: encodeCertificate(caCert.Raw),
	}, nil
}

// newKeyPair generates an RSA key pair: key.pem and pub.pem.
func newKeyPair(req Request, random io.Reader) (map[string][]byte, error) {
	key, err := newRSAKey(random, req.Length)
	if err != nil {
		return nil, err
	}
	pub, err := encodePublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	return map[string][]byte{DataKeyPrivateKey: encodeRSAPrivateKey(key), DataKeyPublicKey: pub}, nil
}
