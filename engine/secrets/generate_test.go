package secrets

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestGenerateEachClassProducesUsableMaterial(t *testing.T) {
	ca := newTestCA(t, "ca-etcd")
	caCert, err := ca.CACertificate()
	require.NoError(t, err)

	tests := []struct {
		name     string
		req      Request
		keys     []string
		typ      string
		validity time.Duration
		check    func(t *testing.T, data map[string][]byte)
	}{
		{
			name: "ca", req: caRequest("ca-etcd"), keys: []string{"ca.crt", "ca.key"}, typ: "Opaque", validity: DefaultCAValidity,
			check: func(t *testing.T, data map[string][]byte) {
				cert, key, err := parseCA(data) // also checks that the key matches
				require.NoError(t, err)
				assert.True(t, cert.IsCA)
				assert.Equal(t, "ca-etcd", cert.Subject.CommonName)
				assert.NotZero(t, cert.KeyUsage&x509.KeyUsageCertSign)
				assert.NoError(t, cert.CheckSignatureFrom(cert), "self-signed")
				assert.Equal(t, testBits, key.(*rsa.PrivateKey).N.BitLen())
			},
		},
		{
			name: "server-cert", req: serverRequest(ca), keys: []string{"ca.crt", "tls.crt", "tls.key"}, typ: "kubernetes.io/tls", validity: DefaultCertValidity,
			check: func(t *testing.T, data map[string][]byte) {
				cert := checkLeaf(t, data, caCert)
				assert.Equal(t, "etcd-main", cert.Subject.CommonName)
				assert.Equal(t, []string{"etcd-main-client", "etcd-main-client.shoot--p--s.svc"}, cert.DNSNames)
				assert.Equal(t, []string{"10.0.0.1", "::1"}, ipStrings(cert.IPAddresses))
				assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, cert.ExtKeyUsage)
				_, err := cert.Verify(x509.VerifyOptions{Roots: pool(caCert), DNSName: "etcd-main-client", CurrentTime: t0, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
				assert.NoError(t, err)
			},
		},
		{
			name: "client-cert", req: clientRequest(ca), keys: []string{"ca.crt", "tls.crt", "tls.key"}, typ: "kubernetes.io/tls", validity: DefaultCertValidity,
			check: func(t *testing.T, data map[string][]byte) {
				cert := checkLeaf(t, data, caCert)
				assert.Equal(t, "kube-apiserver", cert.Subject.CommonName)
				assert.Equal(t, []string{"system:masters"}, cert.Subject.Organization)
				assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, cert.ExtKeyUsage)
				assert.Empty(t, cert.DNSNames)
				_, err := cert.Verify(x509.VerifyOptions{Roots: pool(caCert), CurrentTime: t0, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
				assert.NoError(t, err)
			},
		},
		{
			name: "rsa-key", req: Request{Name: "service-account-key", Namespace: "shoot--p--s", Class: ClassRSAKey, Length: testBits},
			keys: []string{"key.pem", "pub.pem"}, typ: "Opaque",
			check: func(t *testing.T, data map[string][]byte) {
				require.NoError(t, inspectKeyPair(Request{Class: ClassRSAKey, KeyAlgorithm: KeyRSA, Length: testBits}, data))
			},
		},
		{
			name: "token", req: Request{Name: "static-token", Namespace: "shoot--p--s", Class: ClassToken},
			keys: []string{"token"}, typ: "Opaque",
			check: func(t *testing.T, data map[string][]byte) { checkRandom(t, data["token"], DefaultTokenLength) },
		},
		{
			name: "password", req: Request{Name: "observability", Namespace: "shoot--p--s", Class: ClassPassword, Length: 40},
			keys: []string{"password"}, typ: "Opaque",
			check: func(t *testing.T, data map[string][]byte) { checkRandom(t, data["password"], 40) },
		},
		{
			name: "vpn-tlsauth", req: vpnRequest(), keys: []string{"vpn.tlsauth"}, typ: "Opaque",
			check: func(t *testing.T, data map[string][]byte) { checkVPNStaticKey(t, data["vpn.tlsauth"]) },
		},
		{
			name: "bootstrap-token", req: bootstrapRequestWithGroups(),
			keys: []string{"auth-extra-groups", "description", "token-id", "token-secret", "usage-bootstrap-authentication", "usage-bootstrap-signing"},
			typ:  "bootstrap.kubernetes.io/token",
			check: func(t *testing.T, data map[string][]byte) {
				checkBootstrapToken(t, data, "07401b")
				assert.Equal(t, "system:bootstrappers:gardener,system:bootstrappers:seeds", string(data["auth-extra-groups"]))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := generate(t, tt.req, nil, t0, false)
			assert.Equal(t, Created, res.Action)
			assert.Equal(t, "created: no secret exists yet", res.Reason)

			s := res.Secret
			assert.Equal(t, "v1", s.GetAPIVersion())
			assert.Equal(t, "Secret", s.GetKind())
			assert.Equal(t, tt.req.Name, s.GetName())
			assert.Equal(t, tt.req.Namespace, s.GetNamespace())
			assert.Equal(t, tt.typ, s.Object["type"])
			assert.Equal(t, map[string]string{ClassLabel: string(tt.req.Class)}, s.GetLabels())
			assert.Equal(t, t0.Format(time.RFC3339), s.GetAnnotations()[IssuedAtAnnotation])
			assert.Len(t, s.GetAnnotations()[ConfigHashAnnotation], 16)

			data := secretData(t, s)
			assert.ElementsMatch(t, tt.keys, keysOf(data))
			assert.Equal(t, tt.req.Class.DataKeys(), sortedKeys(data))
			assert.Equal(t, data, res.Material.Data)
			tt.check(t, data)

			until, ok := s.GetAnnotations()[ValidUntilAnnotation]
			if tt.validity == 0 {
				assert.False(t, ok, "no expiry for %s", tt.req.Class)
				return
			}
			key := DataKeyCert
			if tt.req.Class == ClassCA {
				key = DataKeyCACert
			}
			cert := certOf(t, s, key)
			assert.Equal(t, t0.Add(-time.Minute), cert.NotBefore, "one minute of clock skew")
			assert.Equal(t, t0.Add(tt.validity), cert.NotAfter)
			assert.Equal(t, cert.NotAfter.Format(time.RFC3339), until)
		})
	}
}

func TestGenerateDefaults(t *testing.T) {
	res := generate(t, Request{Name: "ca", Class: ClassCA, CommonName: "ca"}, nil, t0, false)
	cert, key, err := res.Material.signer()
	require.NoError(t, err)
	require.IsType(t, &ecdsa.PrivateKey{}, key, "CAs default to ECDSA P-256")
	assert.Equal(t, elliptic.P256(), key.(*ecdsa.PrivateKey).Curve)
	assert.Equal(t, "EC PRIVATE KEY", pemType(t, res.Material.Data["ca.key"]))
	assert.Equal(t, t0.Add(10*365*24*time.Hour), cert.NotAfter)

	leaf := generate(t, Request{Name: "srv", Class: ClassServerCert, CommonName: "srv", CA: res.Material}, nil, t0, false)
	leafCert := certOf(t, leaf.Secret, "tls.crt")
	assert.Equal(t, x509.ECDSA, leafCert.PublicKeyAlgorithm, "certificates default to ECDSA P-256")
	assert.Equal(t, x509.KeyUsageDigitalSignature, leafCert.KeyUsage, "no key encipherment for an ECDSA key")
	require.NoError(t, leafCert.CheckSignatureFrom(cert))

	sa := generate(t, Request{Name: "sa", Class: ClassRSAKey}, nil, t0, false)
	saKey, err := parsePrivateKey(sa.Material.Data, "key.pem")
	require.NoError(t, err)
	assert.Equal(t, DefaultRSABits, saKey.(*rsa.PrivateKey).N.BitLen(), "rsa-key Secrets stay RSA")

	pw := generate(t, Request{Name: "pw", Class: ClassPassword}, nil, t0, false)
	assert.Len(t, pw.Material.Data["password"], 32)
}

func TestGenerateReusesExistingByteForByte(t *testing.T) {
	ca := newTestCA(t, "ca")
	for _, req := range allRequests(ca) {
		t.Run(string(req.Class), func(t *testing.T) {
			first := generate(t, req, nil, t0, false)

			// The live object carries more than gardener wrote: server fields and the inventory's
			// label and annotations. None of it makes the material change.
			live := first.Secret.DeepCopy()
			live.SetResourceVersion("42")
			live.SetUID("0b8f7a2e")
			live.SetLabels(map[string]string{ClassLabel: string(req.Class), "declarative-gardener.io/landscape": "local"})
			ann := live.GetAnnotations()
			ann["declarative-gardener.io/component"] = "shoot.etcd"
			live.SetAnnotations(ann)

			second, err := Generate(req, applied(live), own, t0.Add(30*24*time.Hour), false, seeded(99))
			require.NoError(t, err)
			assert.Equal(t, Reused, second.Action, second.Reason)
			assert.Equal(t, first.Secret, second.Secret, "the desired Secret is byte-identical")
			assert.Equal(t, first.Material.Data, second.Material.Data)
		})
	}
}

func TestGenerateRenewsAt80PercentOrTenDaysBeforeExpiry(t *testing.T) {
	ca := newTestCA(t, "ca")
	server := serverRequest(ca)
	short := serverRequest(ca)
	short.Validity = 30 * 24 * time.Hour
	day := 24 * time.Hour

	tests := []struct {
		name   string
		req    Request
		after  time.Duration
		action Action
		reason string
	}{
		{"ca at 79%", caRequest("ca"), DefaultCAValidity / 100 * 79, Reused, "reused: 79% of its validity has passed (valid until 2036-02-27T10:00:00Z)"},
		{"ca at 81%", caRequest("ca"), DefaultCAValidity / 100 * 81, Renewed, "renewed: 81% of its validity has passed (valid until 2036-02-27T10:00:00Z)"},
		{"cert at 79%", server, DefaultCertValidity * 79 / 100, Reused, "reused: 79% of its validity has passed (valid until 2027-03-01T10:00:00Z)"},
		{"cert at 81%", server, DefaultCertValidity * 81 / 100, Renewed, "renewed: 81% of its validity has passed (valid until 2027-03-01T10:00:00Z)"},
		{"cert expired", server, DefaultCertValidity + time.Hour, Renewed, "renewed: it expired at 2027-03-01T10:00:00Z"},
		{"short cert with 11 days left", short, 19 * day, Reused, "reused: 63% of its validity has passed (valid until 2026-03-31T10:00:00Z)"},
		{"short cert with 9 days left", short, 21 * day, Renewed, "renewed: less than 10 days of its validity are left (valid until 2026-03-31T10:00:00Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := generate(t, tt.req, nil, t0, false)
			now := t0.Add(tt.after)
			res := generate(t, tt.req, first.Secret, now, false)
			assert.Equal(t, tt.action, res.Action)
			assert.Equal(t, tt.reason, res.Reason)
			if tt.action == Renewed {
				assert.NotEqual(t, first.Material.Data, res.Material.Data)
				assert.Equal(t, now.Format(time.RFC3339), res.Secret.GetAnnotations()[IssuedAtAnnotation])
				// The renewed material is reused by the next plan.
				again := generate(t, tt.req, res.Secret, now.Add(time.Hour), false)
				assert.Equal(t, Reused, again.Action, again.Reason)
			}
		})
	}
}

func TestGenerateRotatesOnRequest(t *testing.T) {
	ca := newTestCA(t, "ca")
	for _, req := range allRequests(ca) {
		t.Run(string(req.Class), func(t *testing.T) {
			first := generate(t, req, nil, t0, true)
			assert.Equal(t, Created, first.Action, "nothing to rotate yet")

			// Another random source than the first generation's: a rotation drawing from the
			// same deterministic stream would draw the same token.
			rotated, err := Generate(req, applied(first.Secret), own, t0.Add(time.Hour), true, seeded(8))
			require.NoError(t, err)
			assert.Equal(t, Rotated, rotated.Action)
			assert.Equal(t, "rotated: rotation of the "+string(req.Class)+" secrets was requested", rotated.Reason)
			for k, v := range first.Material.Data {
				if k == DataKeyCACert && req.Class != ClassCA {
					continue // the signing CA did not change
				}
				if req.Class == ClassBootstrapToken && k != DataKeyTokenSecret {
					assert.Equal(t, v, rotated.Material.Data[k], "%s is configuration, not material", k)
					continue
				}
				assert.NotEqual(t, v, rotated.Material.Data[k], k)
			}
		})
	}
}

func TestRotatingACARenewsItsDependents(t *testing.T) {
	caReq := caRequest("ca-etcd")
	oldCA := generate(t, caReq, nil, t0, false)
	server := generate(t, serverRequest(oldCA.Material), nil, t0, false)
	client := generate(t, clientRequest(oldCA.Material), nil, t0, false)

	now := t0.Add(time.Hour)
	newCA := generate(t, caReq, oldCA.Secret, now, true)
	require.Equal(t, Rotated, newCA.Action)
	newCACert, err := newCA.Material.CACertificate()
	require.NoError(t, err)

	for _, dep := range []struct {
		req      Request
		existing *unstructured.Unstructured
	}{{serverRequest(newCA.Material), server.Secret}, {clientRequest(newCA.Material), client.Secret}} {
		res := generate(t, dep.req, dep.existing, now, false)
		assert.Equal(t, Renewed, res.Action)
		assert.Equal(t, "renewed: signing CA changed", res.Reason)
		cert := certOf(t, res.Secret, DataKeyCert)
		assert.NoError(t, cert.CheckSignatureFrom(newCACert))
		assert.Equal(t, newCA.Material.Data[DataKeyCACert], res.Material.Data[DataKeyCACert])

		// Next plan: the CA is reused, and so are its dependents.
		caAgain := generate(t, caReq, newCA.Secret, now.Add(time.Hour), false)
		require.Equal(t, Reused, caAgain.Action)
		dep.req.CA = caAgain.Material
		again := generate(t, dep.req, res.Secret, now.Add(time.Hour), false)
		assert.Equal(t, Reused, again.Action, again.Reason)
	}

	// A certificate whose signature is right but whose bundled ca.crt is stale is renewed too.
	stale := server.Secret.DeepCopy()
	setData(stale, DataKeyCACert, encode(newCA.Material.Data[DataKeyCACert]))
	res := generate(t, serverRequest(oldCA.Material), stale, now, false)
	assert.Equal(t, "renewed: signing CA changed", res.Reason)
}

func TestGenerateRegeneratesWhenTheConfigurationChanges(t *testing.T) {
	ca := newTestCA(t, "ca")
	otherCA := func(r Request) Request { r.CommonName = "other"; return r }
	tests := []struct {
		name   string
		req    Request
		change func(Request) Request
	}{
		{"ca common name", caRequest("ca"), otherCA},
		{"ca validity", caRequest("ca"), func(r Request) Request { r.Validity = 5 * 365 * 24 * time.Hour; return r }},
		{"server common name", serverRequest(ca), otherCA},
		{"server DNS name added", serverRequest(ca), func(r Request) Request { r.DNSNames = append(r.DNSNames, "etcd"); return r }},
		{"server IP removed", serverRequest(ca), func(r Request) Request { r.IPAddresses = r.IPAddresses[:1]; return r }},
		{"server key size", serverRequest(ca), func(r Request) Request { r.Length = 3072; return r }},
		{"server key algorithm", serverRequest(ca), func(r Request) Request { r.Length, r.KeyAlgorithm = 0, KeyECDSAP256; return r }},
		{"client organization", clientRequest(ca), func(r Request) Request { r.Organization = []string{"viewers"}; return r }},
		{"token length", Request{Name: "t", Class: ClassToken}, func(r Request) Request { r.Length = 80; return r }},
		{"class token to password", Request{Name: "t", Class: ClassToken}, func(r Request) Request { r.Class = ClassPassword; return r }},
		{"bootstrap token description", bootstrapRequest(), func(r Request) Request { r.CommonName = "gardenlet of seed sweet-seed"; return r }},
		{"bootstrap token groups", bootstrapRequest(), func(r Request) Request { r.Organization = []string{"system:bootstrappers:seeds"}; return r }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := generate(t, tt.req, nil, t0, false)
			res := generate(t, tt.change(tt.req), first.Secret, t0.Add(time.Hour), false)
			assert.Equal(t, Regenerated, res.Action)
			assert.True(t, strings.HasPrefix(res.Reason, "regenerated: "), res.Reason)
			if tt.name == "class token to password" {
				assert.Equal(t, "regenerated: the class changed from token to password", res.Reason)
			} else {
				assert.Contains(t, res.Reason, "its configuration changed (config hash ")
			}
		})
	}
}

func TestGenerateIgnoresOrderAndDuplicatesOfLists(t *testing.T) {
	ca := newTestCA(t, "ca")
	req := serverRequest(ca)
	first := generate(t, req, nil, t0, false)

	req.DNSNames = []string{req.DNSNames[1], req.DNSNames[0], req.DNSNames[1]}
	req.IPAddresses = []string{"0:0:0:0:0:0:0:1", "10.0.0.1"}
	res := generate(t, req, first.Secret, t0.Add(time.Hour), false)
	assert.Equal(t, Reused, res.Action, res.Reason)
}

func TestGenerateRegeneratesCorruptSecrets(t *testing.T) {
	ca := newTestCA(t, "ca")
	otherCert := generate(t, serverRequest(ca), nil, t0, false).Material.Data

	tests := []struct {
		name   string
		req    Request
		break_ func(u *unstructured.Unstructured)
		reason string
	}{
		{"garbage certificate", serverRequest(ca), func(u *unstructured.Unstructured) { setData(u, "tls.crt", encode([]byte("not pem"))) },
			"regenerated: the existing material is unusable: tls.crt holds no PEM block"},
		{"truncated certificate", serverRequest(ca), func(u *unstructured.Unstructured) {
			setData(u, "tls.crt", encode([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")))
		}, "regenerated: the existing material is unusable: tls.crt: x509: malformed certificate"},
		{"missing key", serverRequest(ca), func(u *unstructured.Unstructured) { delete(u.Object["data"].(map[string]any), "tls.key") },
			"regenerated: the existing material is unusable: tls.key is missing"},
		{"key of another certificate", serverRequest(ca), func(u *unstructured.Unstructured) { setData(u, "tls.key", encode(otherCert["tls.key"])) },
			`regenerated: the existing material is unusable: tls.key does not belong to the certificate "etcd-main"`},
		{"garbage key", clientRequest(ca), func(u *unstructured.Unstructured) {
			setData(u, "tls.key", encode([]byte("-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0\n-----END RSA PRIVATE KEY-----\n")))
		}, "regenerated: the existing material is unusable: tls.key: not a parseable private key"},
		{"bad base64", caRequest("ca"), func(u *unstructured.Unstructured) { setData(u, "ca.key", "%%%") },
			"regenerated: the existing secret is unusable: its data key ca.key is not base64"},
		{"data not a map", caRequest("ca"), func(u *unstructured.Unstructured) { u.Object["data"] = "x" },
			"regenerated: the existing secret is unusable: its data is not a map"},
		{"not a secret", caRequest("ca"), func(u *unstructured.Unstructured) { u.SetKind("ConfigMap") },
			"regenerated: the existing secret is unusable: it is a v1 ConfigMap, not a v1 Secret"},
		{"no class label", caRequest("ca"), func(u *unstructured.Unstructured) { u.SetLabels(nil) },
			"regenerated: the existing secret has no secrets.declarative-gardener.io/class label, gardener did not generate it"},
		{"no config hash", caRequest("ca"), func(u *unstructured.Unstructured) { u.SetAnnotations(nil) },
			`regenerated: its configuration changed (config hash ` + caRequestHash(t) + `, was "")`},
		{"edited token", Request{Name: "t", Class: ClassToken}, func(u *unstructured.Unstructured) { setData(u, "token", encode([]byte("short"))) },
			"regenerated: the existing material is unusable: token is not 64 letters and digits"},
		{"mismatched public key", Request{Name: "sa", Class: ClassRSAKey, Length: testBits}, func(u *unstructured.Unstructured) {
			pub, err := encodePublicKey(mustKey(t).Public())
			require.NoError(t, err)
			setData(u, "pub.pem", encode(pub))
		}, "regenerated: the existing material is unusable: pub.pem does not belong to key.pem"},
		{"truncated VPN key", vpnRequest(), func(u *unstructured.Unstructured) {
			v := secretData(t, u)["vpn.tlsauth"]
			setData(u, "vpn.tlsauth", encode(v[:len(v)/2]))
		}, "regenerated: the existing material is unusable: vpn.tlsauth is not an OpenVPN static key V1"},
		{"missing VPN key", vpnRequest(), func(u *unstructured.Unstructured) { delete(u.Object["data"].(map[string]any), "vpn.tlsauth") },
			"regenerated: the existing material is unusable: vpn.tlsauth is missing"},
		{"short bootstrap token secret", bootstrapRequest(), func(u *unstructured.Unstructured) { setData(u, "token-secret", encode([]byte("abc"))) },
			"regenerated: the existing material is unusable: token-secret is not 16 lower-case letters and digits"},
		{"bootstrap token id not the name's", bootstrapRequest(), func(u *unstructured.Unstructured) { setData(u, "token-id", encode([]byte("abcdef"))) },
			"regenerated: the existing material is unusable: token-id is not the token id in the Secret's name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := generate(t, tt.req, nil, t0, false)
			broken := first.Secret.DeepCopy()
			tt.break_(broken)
			res, err := Generate(tt.req, applied(broken), own, t0.Add(time.Hour), false, seeded(3))
			require.NoError(t, err, "a corrupt secret is regenerated, not an error")
			assert.Equal(t, Regenerated, res.Action)
			assert.Equal(t, tt.reason, res.Reason)
			// The regenerated material is good: the next plan reuses it.
			again := generate(t, tt.req, res.Secret, t0.Add(2*time.Hour), false)
			assert.Equal(t, Reused, again.Action, again.Reason)
		})
	}
}

func TestGenerateDecidesDeterministically(t *testing.T) {
	ca := newTestCA(t, "ca")
	for _, req := range allRequests(ca) {
		t.Run(string(req.Class), func(t *testing.T) {
			first := generate(t, req, nil, t0, false)
			for _, now := range []time.Time{t0.Add(time.Hour), t0.Add(DefaultCAValidity)} {
				for _, rotate := range []bool{false, true} {
					a, err := Generate(req, applied(first.Secret), own, now, rotate, seeded(1))
					require.NoError(t, err)
					b, err := Generate(req, applied(first.Secret), own, now, rotate, seeded(2))
					require.NoError(t, err)
					assert.Equal(t, a.Action, b.Action)
					assert.Equal(t, a.Reason, b.Reason)
				}
			}
		})
	}
}

func TestRandomMaterialFollowsTheRandomSource(t *testing.T) {
	for _, req := range []Request{{Name: "x", Class: ClassToken}, {Name: "x", Class: ClassPassword}, {Name: "x", Class: ClassVPNTLSAuth}, bootstrapRequest()} {
		class := req.Class
		a, err := Generate(req, nil, own, t0, false, seeded(1))
		require.NoError(t, err)
		b, err := Generate(req, nil, own, t0, false, seeded(1))
		require.NoError(t, err)
		c, err := Generate(req, nil, own, t0, false, seeded(2))
		require.NoError(t, err)
		assert.Equal(t, a.Secret, b.Secret, "same source, same %s", class)
		assert.NotEqual(t, a.Material.Data, c.Material.Data, "another source, another %s", class)
	}
}

func TestGenerateRejectsInvalidRequests(t *testing.T) {
	ca := newTestCA(t, "ca")
	leafData := generate(t, serverRequest(ca), nil, t0, false).Material.Data
	leaf := NewMaterial(map[string][]byte{DataKeyCACert: leafData[DataKeyCert], DataKeyCAKey: leafData[DataKeyKey]})
	brokenKey := NewMaterial(ca.Data)
	brokenKey.Data[DataKeyCAKey] = []byte("-----BEGIN RSA PRIVATE KEY-----\nc3VwZXJzZWNyZXQ=\n-----END RSA PRIVATE KEY-----\n")

	tests := []struct {
		name string
		req  Request
		err  string
	}{
		{"no name", Request{Class: ClassToken}, "a generated secret needs a name"},
		{"unknown class", Request{Name: "x", Class: "ssh"}, `ssh secret /x: unknown class "ssh" (one of [ca server-cert client-cert rsa-key token password encryption-config vpn-tlsauth bootstrap-token])`},
		{"cert without CA", Request{Name: "x", Class: ClassServerCert, CommonName: "x"}, "server-cert secret /x: a signing CA is required"},
		{"CA with CA", Request{Name: "x", Class: ClassCA, CommonName: "x", CA: ca}, "ca secret /x: only server and client certificates take a signing CA"},
		{"CA without common name", Request{Name: "x", Class: ClassCA}, "ca secret /x: a common name is required"},
		{"server without names", Request{Name: "x", Class: ClassServerCert, CA: ca}, "server-cert secret /x: a common name, DNS name or IP address is required"},
		{"SANs on a client", Request{Name: "x", Class: ClassClientCert, CommonName: "x", DNSNames: []string{"a"}, CA: ca}, "client-cert secret /x: DNS names and IP addresses apply only to server certificates"},
		{"organization on a server", Request{Name: "x", Class: ClassServerCert, CommonName: "x", Organization: []string{"o"}, CA: ca}, "server-cert secret /x: organizations apply only to CAs and client certificates"},
		{"common name on a token", Request{Name: "x", Class: ClassToken, CommonName: "x"}, "token secret /x: a common name applies only to CAs and certificates"},
		{"bad IP", Request{Name: "x", Class: ClassServerCert, IPAddresses: []string{"10.0.0"}, CA: ca}, `server-cert secret /x: "10.0.0" is not an IP address`},
		{"short password", Request{Name: "x", Class: ClassPassword, Length: 8}, "password secret /x: length 8 is below the minimum 16"},
		{"small RSA key", Request{Name: "x", Class: ClassRSAKey, Length: 1024}, "rsa-key secret /x: length 1024 is below the minimum 2048"},
		{"small RSA CA key", Request{Name: "x", Class: ClassCA, CommonName: "x", KeyAlgorithm: KeyRSA, Length: 1024}, "ca secret /x: length 1024 is below the minimum 2048"},
		{"length of an ECDSA key", Request{Name: "x", Class: ClassCA, CommonName: "x", KeyAlgorithm: KeyECDSAP256, Length: 3072}, "ca secret /x: a length (RSA bits) applies only to RSA keys, not to ecdsa-p256"},
		{"ECDSA rsa-key", Request{Name: "x", Class: ClassRSAKey, KeyAlgorithm: KeyECDSAP256}, "rsa-key secret /x: an rsa-key is always an RSA key"},
		{"unknown key algorithm", Request{Name: "x", Class: ClassCA, CommonName: "x", KeyAlgorithm: "ed25519"}, `ca secret /x: unknown key algorithm "ed25519" (one of [ecdsa-p256 rsa])`},
		{"key algorithm of a token", Request{Name: "x", Class: ClassToken, KeyAlgorithm: KeyRSA}, "token secret /x: a key algorithm applies only to CAs, certificates and RSA keys"},
		{"negative validity", Request{Name: "x", Class: ClassCA, CommonName: "x", Validity: -time.Hour}, "ca secret /x: validity -1h0m0s is negative"},
		{"leaf as CA", Request{Name: "x", Class: ClassClientCert, CommonName: "x", CA: leaf}, `client-cert secret /x: signing CA: ca.crt: the certificate "etcd-main" is not a CA`},
		{"CA key unparseable", Request{Name: "x", Class: ClassClientCert, CommonName: "x", CA: brokenKey}, "client-cert secret /x: signing CA: ca.key: not a parseable private key"},
		{"CA key missing", Request{Name: "x", Class: ClassClientCert, CommonName: "x", CA: NewMaterial(map[string][]byte{"ca.crt": ca.Data["ca.crt"]})}, "client-cert secret /x: signing CA: ca.key is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(tt.req, nil, own, t0, false, seeded(1))
			require.EqualError(t, err, tt.err)
			assert.NotContains(t, err.Error(), "c3VwZXJzZWNyZXQ")
			assert.NotContains(t, err.Error(), "supersecret")
		})
	}
	_, err := Generate(Request{Name: "x", Class: ClassClientCert, CommonName: "x", CA: brokenKey}, nil, own, t0, false, nil)
	assert.ErrorIs(t, err, errUnparseableKey, "errors wrap with %w")
}

func TestReasonsNeverContainSecretValues(t *testing.T) {
	ca := newTestCA(t, "ca")
	for _, req := range allRequests(ca) {
		t.Run(string(req.Class), func(t *testing.T) {
			first := generate(t, req, nil, t0, false)
			var reasons []string
			for _, now := range []time.Time{t0, t0.Add(DefaultCertValidity * 9 / 10), t0.Add(DefaultCAValidity)} {
				for _, rotate := range []bool{false, true} {
					reasons = append(reasons, generate(t, req, first.Secret, now, rotate).Reason)
				}
			}
			for _, r := range reasons {
				for k, v := range first.Material.Data {
					assert.NotContains(t, r, string(v), k)
					assert.NotContains(t, r, encode(v), k)
				}
			}
		})
	}
}

func TestGenerateWithoutRandomSourceUsesCryptoRand(t *testing.T) {
	a, err := Generate(Request{Name: "t", Class: ClassToken}, nil, own, t0, false, nil)
	require.NoError(t, err)
	b, err := Generate(Request{Name: "t", Class: ClassToken}, nil, own, t0, false, nil)
	require.NoError(t, err)
	assert.NotEqual(t, a.Material.Data, b.Material.Data)
}

// allRequests is one request of every class.
func allRequests(ca *Material) []Request {
	return []Request{
		caRequest("ca-x"),
		serverRequest(ca),
		clientRequest(ca),
		{Name: "sa", Namespace: "n", Class: ClassRSAKey, Length: testBits},
		{Name: "token", Namespace: "n", Class: ClassToken},
		{Name: "password", Namespace: "n", Class: ClassPassword},
		vpnRequest(),
		bootstrapRequestWithGroups(),
	}
}

// checkLeaf checks a certificate Secret's data against its CA and returns the certificate.
func checkLeaf(t *testing.T, data map[string][]byte, ca *x509.Certificate) *x509.Certificate {
	t.Helper()
	cert, err := parseCertificate(data, DataKeyCert)
	require.NoError(t, err)
	key, err := parsePrivateKey(data, DataKeyKey)
	require.NoError(t, err)
	require.NoError(t, keyMatches(cert, key, DataKeyKey))
	bundled, err := parseCertificate(data, DataKeyCACert)
	require.NoError(t, err)
	assert.Equal(t, ca.Raw, bundled.Raw)
	assert.NoError(t, cert.CheckSignatureFrom(ca))
	assert.False(t, cert.IsCA)
	assert.NotZero(t, cert.KeyUsage&x509.KeyUsageDigitalSignature)
	return cert
}

// checkRandom checks the length and alphabet of a token or password.
func checkRandom(t *testing.T, v []byte, n int) {
	t.Helper()
	assert.Len(t, v, n)
	for _, c := range v {
		assert.True(t, c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9', "%q", c)
	}
}

func pool(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}

func keysOf(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortedKeys(m map[string][]byte) []string {
	out := keysOf(m)
	slices.Sort(out)
	return out
}

func caRequestHash(t *testing.T) string {
	t.Helper()
	req, err := caRequest("ca").normalize()
	require.NoError(t, err)
	return req.configHash()
}

func mustKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := newRSAKey(rand.Reader, testBits)
	require.NoError(t, err)
	return k
}
