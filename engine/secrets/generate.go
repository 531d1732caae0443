package secrets

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Generate returns the desired Secret for req, reusing the material of existing (the live Secret,
// or nil) whenever it is still good, so that a second plan never shows a generated Secret change.
//
// The existing material is reused (Action Reused, data byte for byte) only when it is the
// landscape's own by prov (see Provenance; otherwise it is regenerated and Result.Foreign says
// why, and no key of it is carried over), existing carries the same class label and config hash, its material parses and belongs together, for certificates
// req.CA signed it, and less than RenewAfterValidityPercentage of its validity has passed with at
// least RenewBeforeExpiry left at now. Otherwise new material is generated (Created, Renewed,
// Rotated or Regenerated, see Action); a corrupt existing Secret is regenerated, not an error.
//
// rotate asks for new material regardless (`gardener apply --rotate <class>`). Rotating a CA
// renews every certificate signed by it on the same run: their Generate is given the new CA's
// Material, finds that it did not sign the existing certificate, and renews with the reason
// "signing CA changed". Rotation replaces a CA at once, without Gardener's two-phase bundle of
// old and new CA (Gardener's docs/development/secrets_management.md), so clients holding only the
// old ca.crt fail until they are rolled with the new one; the plan lists every renewed Secret.
//
// random supplies certificate serial numbers, the characters of tokens, passwords and bootstrap
// token secrets and the bytes of OpenVPN static keys; nil means crypto/rand.Reader. RSA and
// ECDSA keys ignore it since Go 1.26 (see newRSAKey), so only tokens, passwords, static keys and
// bootstrap tokens are reproducible from random alone. The decision never depends on random.
//
// Errors are about the request (an invalid field, a missing or broken signing CA) or a failing
// random source; they and Reason never contain secret values.
func Generate(req Request, existing *unstructured.Unstructured, prov Provenance, now time.Time, rotate bool, random io.Reader) (*Result, error) {
	if random == nil {
		random = rand.Reader
	}
	req, err := req.normalize()
	if err != nil {
		return nil, err
	}
	if req.CA != nil {
		if _, _, err := req.CA.signer(); err != nil {
			return nil, fmt.Errorf("%s: signing CA: %w", req, err)
		}
	}
	d := decide(req, existing, prov, now, rotate)
	if d.action == Reused {
		return &Result{
			Secret:   newSecret(req, d.live.data, d.live.annotations),
			Action:   Reused,
			Reason:   d.reason,
			Material: NewMaterial(d.live.data),
		}, nil
	}
	var (
		data       map[string][]byte
		validUntil time.Time
	)
	if req.Class == ClassEncryptionConfig {
		keep := existing
		if d.foreign != "" {
			keep = nil // keys someone else chose never encrypt the landscape's data
		}
		data, err = encryptionMaterial(req, keep, d.action, now, random)
	} else {
		data, validUntil, err = generateMaterial(req, now, random)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req, err)
	}
	return &Result{
		Secret:   newSecret(req, data, generatedAnnotations(req.configHash(), now, validUntil)),
		Action:   d.action,
		Reason:   d.reason,
		Foreign:  d.foreign,
		Material: NewMaterial(data),
	}, nil
}

// generateMaterial generates fresh material for req and returns it with the end of its validity
// (zero for classes that do not expire).
func generateMaterial(req Request, now time.Time, random io.Reader) (map[string][]byte, time.Time, error) {
	var (
		data map[string][]byte
		err  error
	)
	switch req.Class {
	case ClassCA:
		data, err = newCA(req, now, random)
	case ClassServerCert, ClassClientCert:
		data, err = newLeafCertificate(req, now, random)
	case ClassRSAKey:
		data, err = newKeyPair(req, random)
	case ClassToken:
		data, err = randomData(DataKeyToken, req.Length, random)
	case ClassPassword:
		data, err = randomData(DataKeyPassword, req.Length, random)
	case ClassVPNTLSAuth:
		data, err = newVPNStaticKey(random)
	case ClassBootstrapToken:
		data, err = newBootstrapToken(req, random)
	}
	if err != nil || !req.Class.expires() {
		return data, time.Time{}, err
	}
	key := DataKeyCert
	if req.Class == ClassCA {
		key = DataKeyCACert
	}
	cert, err := parseCertificate(data, key)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading back the generated certificate: %w", err)
	}
	return data, cert.NotAfter, nil
}

// randomData is a single random string of n characters under key.
func randomData(key string, n int, random io.Reader) (map[string][]byte, error) {
	v, err := randomString(random, n)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{key: v}, nil
}

// encryptionMaterial writes the encryption configuration of req. Keys of a readable existing
// configuration are kept, because data in etcd stays encrypted with them: a change of the
// resources rewrites the configuration around the same keys, and rotation puts a new key first,
// which encrypts from then on, while the old ones still decrypt. Gardener rotates in two phases
// and eventually drops the old key after rewriting all data; here old keys stay until removed by
// hand.
func encryptionMaterial(req Request, existing *unstructured.Unstructured, action Action, now time.Time, random io.Reader) (map[string][]byte, error) {
	var keys []encryptionKey
	if existing != nil {
		if live, err := readLive(existing); err == nil {
			keys, _ = encryptionKeys(live.data) // unreadable: nothing to keep
		}
	}
	if action == Rotated || len(keys) == 0 {
		fresh, err := newEncryptionConfig(req, nil, now, random)
		if err != nil || len(keys) == 0 {
			return fresh, err
		}
		newKeys, err := encryptionKeys(fresh)
		if err != nil {
			return nil, err
		}
		keys = append(newKeys, keys...)
	}
	return newEncryptionConfig(req, keys, now, random)
}
