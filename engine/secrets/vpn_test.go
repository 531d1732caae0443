package secrets

import (
	"bytes"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vpnRequest is the tls-auth key of vpn-seed-server in a shoot namespace.
func vpnRequest() Request {
	return Request{Name: "vpn-seed-server-tlsauth", Namespace: "shoot--p--s", Class: ClassVPNTLSAuth}
}

// checkVPNStaticKey checks the layout `openvpn --genkey secret` writes and returns the key bytes.
func checkVPNStaticKey(t *testing.T, v []byte) []byte {
	t.Helper()
	lines := strings.Split(string(v), "\n")
	require.Len(t, lines, 3+1+16+1+1, "header, begin, 16 key lines, end, and a final newline")
	assert.Equal(t, []string{"#", "# 2048 bit OpenVPN static key", "#", "-----BEGIN OpenVPN Static key V1-----"}, lines[:4])
	assert.Equal(t, []string{"-----END OpenVPN Static key V1-----", ""}, lines[20:])
	var raw []byte
	for _, l := range lines[4:20] {
		require.Len(t, l, 32)
		assert.Equal(t, strings.ToLower(l), l, "lower-case hex")
		b, err := hex.DecodeString(l)
		require.NoError(t, err)
		raw = append(raw, b...)
	}
	assert.Len(t, raw, 256)
	return raw
}

func TestVPNTLSAuthClass(t *testing.T) {
	assert.Contains(t, Classes(), ClassVPNTLSAuth)
	assert.Equal(t, Class("vpn-tlsauth"), ClassVPNTLSAuth)
	assert.True(t, ClassVPNTLSAuth.Valid())
	assert.Equal(t, []string{"vpn.tlsauth"}, ClassVPNTLSAuth.DataKeys())
	assert.Equal(t, "vpn.tlsauth", DataKeyVPNTLSAuth, "Gardener's data key (Gardener's docs/development/secrets_management.md)")
	assert.Equal(t, "Opaque", ClassVPNTLSAuth.SecretType())
	assert.False(t, ClassVPNTLSAuth.expires())
	assert.False(t, ClassVPNTLSAuth.hasKey())
}

func TestVPNStaticKeyFormat(t *testing.T) {
	counting := make([]byte, 256)
	for i := range counting {
		counting[i] = byte(i)
	}
	tests := []struct {
		name   string
		random func() io.Reader
		want   []byte // the key bytes; nil: the first 256 bytes of random
	}{
		{"counting bytes", func() io.Reader { return bytes.NewReader(counting) }, counting},
		{"seed 1", func() io.Reader { return seeded(1) }, nil},
		{"seed 2", func() io.Reader { return seeded(2) }, nil},
		{"all zero", func() io.Reader { return bytes.NewReader(make([]byte, 300)) }, make([]byte, 256)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(vpnRequest(), nil, own, t0, false, tt.random())
			require.NoError(t, err)
			assert.Equal(t, Created, res.Action)
			assert.Equal(t, "Opaque", res.Secret.Object["type"])
			assert.NotContains(t, res.Secret.GetAnnotations(), ValidUntilAnnotation, "no expiry")
			data := secretData(t, res.Secret)
			require.Equal(t, []string{"vpn.tlsauth"}, sortedKeys(data))
			raw := checkVPNStaticKey(t, data["vpn.tlsauth"])
			want := tt.want
			if want == nil {
				want = make([]byte, 256)
				_, err := io.ReadFull(tt.random(), want)
				require.NoError(t, err)
			}
			assert.Equal(t, want, raw, "the key is the random source's bytes")
		})
	}

	res, err := Generate(vpnRequest(), nil, own, t0, false, bytes.NewReader(counting))
	require.NoError(t, err)
	v := string(res.Material.Data[DataKeyVPNTLSAuth])
	assert.True(t, strings.HasPrefix(v, "#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n000102030405060708090a0b0c0d0e0f\n101112"), v)
	assert.True(t, strings.HasSuffix(v, "\nf0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\n-----END OpenVPN Static key V1-----\n"), v)
}

func TestVPNStaticKeyReuseAndRotation(t *testing.T) {
	first := generate(t, vpnRequest(), nil, t0, false)

	later := t0.Add(5 * 365 * 24 * time.Hour) // never expires
	reused, err := Generate(vpnRequest(), applied(first.Secret), own, later, false, seeded(42))
	require.NoError(t, err)
	assert.Equal(t, Reused, reused.Action)
	assert.Equal(t, "reused: unchanged", reused.Reason)
	assert.Equal(t, first.Secret, reused.Secret, "the desired Secret is byte-identical")

	rotated, err := Generate(vpnRequest(), applied(first.Secret), own, later, true, seeded(42))
	require.NoError(t, err)
	assert.Equal(t, Rotated, rotated.Action)
	assert.Equal(t, "rotated: rotation of the vpn-tlsauth secrets was requested", rotated.Reason)
	assert.NotEqual(t, first.Material.Data, rotated.Material.Data)
	checkVPNStaticKey(t, rotated.Material.Data[DataKeyVPNTLSAuth])
}

func TestVPNStaticKeyMalformedIsRegenerated(t *testing.T) {
	good := string(generate(t, vpnRequest(), nil, t0, false).Material.Data[DataKeyVPNTLSAuth])
	lines := strings.Split(good, "\n")
	keyLine := lines[4]
	notGenkey := "regenerated: the existing material is unusable: vpn.tlsauth is not a 2048-bit OpenVPN static key V1 as openvpn --genkey writes it"
	notKey := "regenerated: the existing material is unusable: vpn.tlsauth is not an OpenVPN static key V1"

	tests := []struct {
		name   string
		value  string
		reason string
	}{
		{"empty", "", notKey},
		{"no markers", strings.Join(lines[4:20], "\n"), notKey},
		{"no end marker", strings.Join(lines[:20], "\n") + "\n", notKey},
		{"end before begin", "-----END OpenVPN Static key V1-----\n-----BEGIN OpenVPN Static key V1-----\n", notKey},
		{"a line missing", strings.Replace(good, keyLine+"\n", "", 1), notGenkey},
		{"a line too many", strings.Replace(good, keyLine+"\n", keyLine+"\n"+keyLine+"\n", 1), notGenkey},
		{"a digit missing", strings.Replace(good, keyLine, keyLine[1:], 1), notGenkey},
		{"not hex", strings.Replace(good, keyLine, "g"+keyLine[1:], 1), notGenkey},
		{"upper-case hex", strings.Replace(good, keyLine, strings.ToUpper(keyLine), 1), notGenkey},
		{"two lines joined", strings.Replace(good, lines[4]+"\n"+lines[5], lines[4]+lines[5], 1), notGenkey},
		{"CRLF line ends", strings.ReplaceAll(good, "\n", "\r\n"), notKey},
		{"header missing", strings.TrimPrefix(good, "#\n# 2048 bit OpenVPN static key\n#\n"), notGenkey},
		{"trailing text", good + "extra\n", notGenkey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEqual(t, good, tt.value)
			first := generate(t, vpnRequest(), nil, t0, false)
			broken := first.Secret.DeepCopy()
			setData(broken, DataKeyVPNTLSAuth, encode([]byte(tt.value)))
			res, err := Generate(vpnRequest(), applied(broken), own, t0.Add(time.Hour), false, seeded(3))
			require.NoError(t, err, "a malformed key is regenerated, not an error")
			assert.Equal(t, Regenerated, res.Action)
			assert.Equal(t, tt.reason, res.Reason)
			assert.NotContains(t, res.Reason, keyLine)
			checkVPNStaticKey(t, res.Material.Data[DataKeyVPNTLSAuth])
			again := generate(t, vpnRequest(), res.Secret, t0.Add(2*time.Hour), false)
			assert.Equal(t, Reused, again.Action, again.Reason)
		})
	}
}

func TestVPNStaticKeyRequests(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Request)
		err    string
	}{
		{"length", func(r *Request) { r.Length = 2048 }, "vpn-tlsauth secret shoot--p--s/vpn-seed-server-tlsauth: the key length of an OpenVPN static key is fixed (2048 bits)"},
		{"common name", func(r *Request) { r.CommonName = "vpn" }, "vpn-tlsauth secret shoot--p--s/vpn-seed-server-tlsauth: a common name applies only to CAs and certificates"},
		{"resources", func(r *Request) { r.Resources = []string{"secrets"} }, "vpn-tlsauth secret shoot--p--s/vpn-seed-server-tlsauth: resources apply only to encryption configurations"},
		{"CA", func(r *Request) { r.CA = NewMaterial(nil) }, "vpn-tlsauth secret shoot--p--s/vpn-seed-server-tlsauth: only server and client certificates take a signing CA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := vpnRequest()
			tt.change(&req)
			_, err := Generate(req, nil, own, t0, false, seeded(1))
			assert.EqualError(t, err, tt.err)
		})
	}

	_, err := Generate(vpnRequest(), nil, own, t0, false, bytes.NewReader(make([]byte, 100)))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.EqualError(t, err, "vpn-tlsauth secret shoot--p--s/vpn-seed-server-tlsauth: reading random bytes: unexpected EOF")
}
