package secrets

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RSA material generated before key algorithms existed must keep its config hash, or every RSA
// Secret of a landscape would be regenerated on upgrade. The literals are the hashes the
// previous release computed for these requests.
func TestConfigHashOfRSAMaterialIsUnchanged(t *testing.T) {
	ca, err := Request{Name: "x", Class: ClassCA, CommonName: "kubernetes", KeyAlgorithm: KeyRSA}.normalize()
	require.NoError(t, err)
	assert.Equal(t, "58ec2a8cb9de64d1", ca.configHash())
	sa, err := Request{Name: "x", Class: ClassRSAKey}.normalize()
	require.NoError(t, err)
	assert.Equal(t, "bb721005f2856f56", sa.configHash())

	ecdsaCA, err := Request{Name: "x", Class: ClassCA, CommonName: "kubernetes"}.normalize()
	require.NoError(t, err)
	assert.Equal(t, KeyECDSAP256, ecdsaCA.KeyAlgorithm)
	assert.NotEqual(t, ca.configHash(), ecdsaCA.configHash(), "a change of the key algorithm regenerates")
}

func TestKeyDefaults(t *testing.T) {
	tests := []struct {
		name   string
		req    Request
		alg    KeyAlgorithm
		length int
	}{
		{"CA", Request{Name: "x", Class: ClassCA, CommonName: "x"}, KeyECDSAP256, 0},
		{"CA with a length", Request{Name: "x", Class: ClassCA, CommonName: "x", Length: 4096}, KeyRSA, 4096},
		{"RSA CA", Request{Name: "x", Class: ClassCA, CommonName: "x", KeyAlgorithm: KeyRSA}, KeyRSA, DefaultRSABits},
		{"rsa-key", Request{Name: "x", Class: ClassRSAKey}, KeyRSA, DefaultRSABits},
		{"token", Request{Name: "x", Class: ClassToken}, "", DefaultTokenLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.req.normalize()
			require.NoError(t, err)
			assert.Equal(t, tt.alg, r.KeyAlgorithm)
			assert.Equal(t, tt.length, r.Length)
		})
	}
}

// Material whose key is of another algorithm or size than the request's is not reused, even
// when its config hash was carried over by hand.
func TestInspectRejectsAKeyOfAnotherAlgorithm(t *testing.T) {
	rsaCA := generate(t, caRequest("ca"), nil, t0, false) // caRequest asks for testBits of RSA
	ecdsaReq, err := Request{Name: "ca", Namespace: "garden", Class: ClassCA, CommonName: "ca"}.normalize()
	require.NoError(t, err)
	_, err = inspect(ecdsaReq, rsaCA.Material.Data)
	require.EqualError(t, err, "ca.key is not an ECDSA P-256 key")

	ecdsaCA := generate(t, ecdsaReq, nil, t0, false)
	rsaReq, err := caRequest("ca").normalize()
	require.NoError(t, err)
	_, err = inspect(rsaReq, ecdsaCA.Material.Data)
	require.EqualError(t, err, "ca.key is not a 2048-bit RSA key")

	// An RSA certificate signed by an ECDSA CA is fine: the CA's algorithm is its own.
	leafReq := serverRequest(ecdsaCA.Material)
	leaf := generate(t, leafReq, nil, t0, false)
	normalized, err := leafReq.normalize()
	require.NoError(t, err)
	_, err = inspect(normalized, leaf.Material.Data)
	require.NoError(t, err)
}
