package secrets

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// The text form of an OpenVPN static key, as `openvpn --genkey secret` writes it: a comment
// header, then 256 random bytes as 16 lines of 32 lower-case hex digits between the V1 markers.
// OpenVPN's tls-auth reads exactly this file (vpn-seed-server and vpn-shoot mount it, Gardener's
// "Shoot Credentials Rotation" docs/usage/shoot-operations/shoot_credentials_rotation.md).
const (
	vpnStaticKeyBytes     = 256 // 2048 bits
	vpnStaticKeyLineBytes = 16  // 32 hex digits per line
	vpnStaticKeyHeader    = "#\n# 2048 bit OpenVPN static key\n#\n"
	vpnStaticKeyBegin     = "-----BEGIN OpenVPN Static key V1-----"
	vpnStaticKeyEnd       = "-----END OpenVPN Static key V1-----"
)

// newVPNStaticKey draws a static key from random. The same reader contents give the same key,
// which makes it reproducible in tests.
func newVPNStaticKey(random io.Reader) (map[string][]byte, error) {
	raw := make([]byte, vpnStaticKeyBytes)
	if _, err := io.ReadFull(random, raw); err != nil {
		return nil, fmt.Errorf("reading random bytes: %w", err)
	}
	return map[string][]byte{DataKeyVPNTLSAuth: formatVPNStaticKey(raw)}, nil
}

// formatVPNStaticKey writes raw key bytes in the text form of an OpenVPN static key V1.
func formatVPNStaticKey(raw []byte) []byte {
	var b bytes.Buffer
	b.WriteString(vpnStaticKeyHeader)
	b.WriteString(vpnStaticKeyBegin + "\n")
	for i := 0; i < len(raw); i += vpnStaticKeyLineBytes {
		b.WriteString(hex.EncodeToString(raw[i:min(i+vpnStaticKeyLineBytes, len(raw))]))
		b.WriteByte('\n')
	}
	b.WriteString(vpnStaticKeyEnd + "\n")
	return b.Bytes()
}

// inspectVPNStaticKey checks that data holds a 2048-bit OpenVPN static key exactly as
// formatVPNStaticKey writes it. Anything else (a truncated key, another size, an edited header)
// is unusable and regenerated, as an edited token is: gardener wrote the value, so a difference
// means damage, and the strict form is one every OpenVPN version reads. Errors name the key,
// never its value.
func inspectVPNStaticKey(data map[string][]byte) error {
	v, ok := data[DataKeyVPNTLSAuth]
	if !ok {
		return fmt.Errorf("%s is missing", DataKeyVPNTLSAuth)
	}
	s := string(v)
	begin := strings.Index(s, vpnStaticKeyBegin+"\n")
	end := strings.LastIndex(s, vpnStaticKeyEnd)
	if begin < 0 || end < begin {
		return fmt.Errorf("%s is not an OpenVPN static key V1", DataKeyVPNTLSAuth)
	}
	digits := strings.ReplaceAll(s[begin+len(vpnStaticKeyBegin)+1:end], "\n", "")
	raw, err := hex.DecodeString(digits) // its error would quote a character of the key
	if err != nil || len(raw) != vpnStaticKeyBytes || !bytes.Equal(formatVPNStaticKey(raw), v) {
		return fmt.Errorf("%s is not a %d-bit OpenVPN static key V1 as openvpn --genkey writes it", DataKeyVPNTLSAuth, vpnStaticKeyBytes*8)
	}
	return nil
}
