package secrets

import (
	"bytes"
	"crypto/rsa"
	"fmt"
	"strings"
	"time"
)

// inspection is what an existing Secret's material tells about its reuse.
type inspection struct {
	notBefore, notAfter time.Time // zero for classes that do not expire
	caChanged           bool      // a certificate not signed by the requested CA
}

// inspect checks that data is usable material for req: it parses, keys match their
// certificates, sizes and lengths are the requested ones. An error means the material is unusable
// and is regenerated; errors name keys, never values.
func inspect(req Request, data map[string][]byte) (inspection, error) {
	switch req.Class {
	case ClassCA:
		cert, key, err := parseCA(data)
		if err != nil {
			return inspection{}, err
		}
		if err := keyFits(req, key, DataKeyCAKey); err != nil {
			return inspection{}, err
		}
		return inspection{notBefore: cert.NotBefore, notAfter: cert.NotAfter}, nil
	case ClassServerCert, ClassClientCert:
		return inspectLeaf(req, data)
	case ClassRSAKey:
		return inspection{}, inspectKeyPair(req, data)
	case ClassEncryptionConfig:
		_, err := encryptionKeys(data)
		return inspection{}, err
	case ClassVPNTLSAuth:
		return inspection{}, inspectVPNStaticKey(data)
	case ClassBootstrapToken:
		return inspection{}, inspectBootstrapToken(req, data)
	default: // token, password
		key := DataKeyToken
		if req.Class == ClassPassword {
			key = DataKeyPassword
		}
		if v := data[key]; len(v) != req.Length || !onlyAlphabet(v) {
			return inspection{}, fmt.Errorf("%s is not %d letters and digits", key, req.Length)
		}
		return inspection{}, nil
	}
}

// inspectLeaf checks a server or client certificate and whether req.CA signed it.
func inspectLeaf(req Request, data map[string][]byte) (inspection, error) {
	cert, err := parseCertificate(data, DataKeyCert)
	if err != nil {
		return inspection{}, err
	}
	key, err := parsePrivateKey(data, DataKeyKey)
	if err != nil {
		return inspection{}, err
	}
	if err := keyMatches(cert, key, DataKeyKey); err != nil {
		return inspection{}, err
	}
	if err := keyFits(req, key, DataKeyKey); err != nil {
		return inspection{}, err
	}
	bundled, err := parseCertificate(data, DataKeyCACert)
	if err != nil {
		return inspection{}, err
	}
	caCert, _, err := req.CA.signer()
	if err != nil {
		return inspection{}, fmt.Errorf("signing CA: %w", err) // checked by Generate before
	}
	// Both the signature and the ca.crt shipped alongside must be the requested CA's: a Secret
	// whose ca.crt is stale would make its consumers trust the wrong CA.
	changed := !bytes.Equal(bundled.Raw, caCert.Raw) || cert.CheckSignatureFrom(caCert) != nil
	return inspection{notBefore: cert.NotBefore, notAfter: cert.NotAfter, caChanged: changed}, nil
}

// inspectKeyPair checks an RSA key pair of the requested size.
func inspectKeyPair(req Request, data map[string][]byte) error {
	key, err := parsePrivateKey(data, DataKeyPrivateKey)
	if err != nil {
		return err
	}
	if err := keyFits(req, key, DataKeyPrivateKey); err != nil {
		return err
	}
	rsaKey := key.(*rsa.PrivateKey) // keyFits checked it
	pub, err := parsePublicKey(data, DataKeyPublicKey)
	if err != nil {
		return err
	}
	if !rsaKey.PublicKey.Equal(pub) {
		return fmt.Errorf("%s does not belong to %s", DataKeyPublicKey, DataKeyPrivateKey)
	}
	return nil
}

// onlyAlphabet reports whether every byte of v is a character of alphabet.
func onlyAlphabet(v []byte) bool {
	for _, c := range v {
		if !strings.ContainsRune(alphabet, rune(c)) {
			return false
		}
	}
	return true
}
