package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"
)

// Request describes one generated Secret: which object to produce and what material it holds.
// Everything but Name, Namespace and CA is configuration: a change of it regenerates the material
// (Action Regenerated), while a change of the CA's material renews certificates signed by it.
type Request struct {
	// Name and Namespace name the Secret object to produce.
	Name, Namespace string
	// Class is the kind of material.
	Class Class
	// CommonName is the subject common name of CAs and certificates (for client certificates the
	// Kubernetes user name), or the description of a bootstrap token (default
	// DefaultBootstrapTokenDescription).
	CommonName string
	// Organization is the subject organization of client certificates (the Kubernetes groups),
	// or the extra groups of a bootstrap token (each system:bootstrappers:<name>).
	Organization []string
	// DNSNames are the DNS subject alternative names of server certificates.
	DNSNames []string
	// IPAddresses are the IP subject alternative names of server certificates.
	IPAddresses []string
	// Validity is how long a CA or certificate is valid; zero means DefaultCAValidity for CAs and
	// DefaultCertValidity for certificates. Ignored for classes that do not expire.
	Validity time.Duration
	// KeyAlgorithm is the key type of CAs and certificates: KeyECDSAP256 unless KeyRSA is asked
	// for or a Length is set; rsa-key Secrets are always KeyRSA. Empty for other classes.
	KeyAlgorithm KeyAlgorithm
	// Length is the RSA key size in bits for RSA keys, and CAs and certificates with RSA keys
	// (default DefaultRSABits), or the number of characters of tokens and passwords (defaults
	// DefaultTokenLength and DefaultPasswordLength). ECDSA keys, encryption configurations,
	// OpenVPN static keys and bootstrap tokens have a fixed size and take no Length.
	Length int
	// CA is the signing CA of server and client certificates: the Material of its CA Secret
	// (Result.Material of the CA's Generate). Nil for every other class.
	CA *Material
	// Resources are the resources (resource.group) an encryption-config encrypts.
	Resources []string
}

// String names the requested Secret for errors and logs; it never includes material.
func (r Request) String() string { return fmt.Sprintf("%s secret %s/%s", r.Class, r.Namespace, r.Name) }

// normalize validates r and returns it with defaults applied and its lists in canonical order
// (sorted, without duplicates, IP addresses in their canonical text form), so that requests
// meaning the same material hash the same and generate the same certificates.
func (r Request) normalize() (Request, error) {
	if r.Name == "" {
		return r, errors.New("a generated secret needs a name")
	}
	if !r.Class.Valid() {
		return r, fmt.Errorf("%s: unknown class %q (one of %v)", r, r.Class, Classes())
	}
	r.Organization = canonical(r.Organization)
	r.DNSNames = canonical(r.DNSNames)
	ips := make([]string, 0, len(r.IPAddresses))
	for _, s := range r.IPAddresses {
		ip := net.ParseIP(s)
		if ip == nil {
			return r, fmt.Errorf("%s: %q is not an IP address", r, s)
		}
		ips = append(ips, ip.String())
	}
	r.IPAddresses = canonical(ips)
	r.Resources = canonical(r.Resources)
	if !r.Class.expires() {
		r.Validity = 0
	}
	if err := r.applyDefaults(); err != nil {
		return r, err
	}
	return r, r.validateShape()
}

// applyDefaults fills Validity, KeyAlgorithm and Length and checks they are usable.
func (r *Request) applyDefaults() error {
	switch {
	case r.Validity < 0:
		return fmt.Errorf("%s: validity %s is negative", r, r.Validity)
	case r.Validity == 0 && r.Class == ClassCA:
		r.Validity = DefaultCAValidity
	case r.Validity == 0 && r.Class.isLeafCertificate():
		r.Validity = DefaultCertValidity
	}
	if r.Class.expires() && r.Validity <= 2*ClockSkew {
		return fmt.Errorf("%s: validity %s is too short", r, r.Validity)
	}
	if err := r.applyKeyDefaults(); err != nil || r.Class.hasKey() {
		return err // a key's Length is settled with its algorithm
	}
	switch {
	case r.Length == 0 && r.Class == ClassToken:
		r.Length = DefaultTokenLength
	case r.Length == 0 && r.Class == ClassPassword:
		r.Length = DefaultPasswordLength
	case r.Class == ClassEncryptionConfig:
		if r.Length != 0 {
			return fmt.Errorf("%s: the key length of an encryption configuration is fixed", r)
		}
	case r.Class == ClassVPNTLSAuth:
		if r.Length != 0 {
			return fmt.Errorf("%s: the key length of an OpenVPN static key is fixed (2048 bits)", r)
		}
	case r.Class == ClassBootstrapToken:
		if r.Length != 0 {
			return fmt.Errorf("%s: the length of a bootstrap token is fixed (a %d-character id and a %d-character secret)", r, bootstrapTokenIDLength, bootstrapTokenSecretLength)
		}
		if r.CommonName == "" {
			// Defaulted here, so that an unset description and the default spelled out hash alike.
			r.CommonName = DefaultBootstrapTokenDescription
		}
	case r.Length < MinRandomLength:
		return fmt.Errorf("%s: length %d is below the minimum %d", r, r.Length, MinRandomLength)
	}
	return nil
}

// validateShape checks the fields each class needs and rejects fields it would silently ignore.
func (r Request) validateShape() error {
	switch r.Class {
	case ClassCA, ClassClientCert:
		if r.CommonName == "" {
			return fmt.Errorf("%s: a common name is required", r)
		}
	case ClassServerCert:
		if r.CommonName == "" && len(r.DNSNames) == 0 && len(r.IPAddresses) == 0 {
			return fmt.Errorf("%s: a common name, DNS name or IP address is required", r)
		}
	}
	if r.Class != ClassServerCert && len(r.DNSNames)+len(r.IPAddresses) > 0 {
		return fmt.Errorf("%s: DNS names and IP addresses apply only to server certificates", r)
	}
	if r.Class.isLeafCertificate() != (r.CA != nil) {
		if r.CA == nil {
			return fmt.Errorf("%s: a signing CA is required", r)
		}
		return fmt.Errorf("%s: only server and client certificates take a signing CA", r)
	}
	// A bootstrap token's common name is its description and its organizations are its groups.
	bootstrap := r.Class == ClassBootstrapToken
	if !r.Class.expires() && !bootstrap && r.CommonName != "" {
		return fmt.Errorf("%s: a common name applies only to CAs and certificates", r)
	}
	if r.Class != ClassCA && r.Class != ClassClientCert && !bootstrap && len(r.Organization) > 0 {
		return fmt.Errorf("%s: organizations apply only to CAs and client certificates", r)
	}
	if (r.Class == ClassEncryptionConfig) != (len(r.Resources) > 0) {
		if len(r.Resources) == 0 {
			return fmt.Errorf("%s: the resources to encrypt are required", r)
		}
		return fmt.Errorf("%s: resources apply only to encryption configurations", r)
	}
	if bootstrap {
		return r.validateBootstrapToken()
	}
	return nil
}

// configHashVersion changes when the meaning of a hashed field changes, so that every Secret
// generated under the old meaning is regenerated once.
const configHashVersion = 1

// configHash is a hash of the normalised configuration of r: everything that shapes the material
// except the signing CA (a CA change is detected from the certificate itself and reported as a
// renewal) and the object's name and namespace (which identify it). It is not secret. The key
// algorithm is hashed only when it is not RSA, so that RSA material generated before key
// algorithms existed keeps its hash.
func (r Request) configHash() string {
	b, err := json.Marshal(struct {
		Version      int      `json:"v"`
		Class        Class    `json:"class"`
		CommonName   string   `json:"cn,omitempty"`
		Organization []string `json:"o,omitempty"`
		DNSNames     []string `json:"dns,omitempty"`
		IPAddresses  []string `json:"ip,omitempty"`
		Validity     string   `json:"validity,omitempty"`
		Algorithm    string   `json:"alg,omitempty"`
		Length       int      `json:"length"`
		Resources    []string `json:"resources,omitempty"`
	}{configHashVersion, r.Class, r.CommonName, r.Organization, r.DNSNames, r.IPAddresses, durationText(r.Validity), hashedAlgorithm(r.KeyAlgorithm), r.Length, r.Resources})
	if err != nil {
		panic(err) // strings and ints always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// hashedAlgorithm is the key algorithm as configHash records it: empty for RSA (see configHash).
func hashedAlgorithm(a KeyAlgorithm) string {
	if a == KeyRSA {
		return ""
	}
	return string(a)
}

// durationText is d as text, or empty for no duration.
func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// canonical returns the sorted, duplicate-free, non-empty elements of s (nil when none).
func canonical(s []string) []string {
	out := slices.DeleteFunc(slices.Clone(s), func(v string) bool { return v == "" })
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil
	}
	return out
}
