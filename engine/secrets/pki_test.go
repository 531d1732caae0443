package secrets

import (
	"testing"
	"testing/cryptotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Go 1.26 ignores the reader given to rsa.GenerateKey: the same reader does not give the same
// key. This test pins that behaviour, which is why Generate documents that only serial numbers,
// tokens and passwords follow its random source.
func TestRSAKeysIgnoreTheGivenReader(t *testing.T) {
	a, err := newRSAKey(seeded(1), testBits)
	require.NoError(t, err)
	b, err := newRSAKey(seeded(1), testBits)
	require.NoError(t, err)
	assert.False(t, a.Equal(b))
}

// With testing/cryptotest.SetGlobalRandom, the whole material is reproducible: same CA bytes for
// the same seeds. Not parallel: the global source affects the whole process.
func TestMaterialIsReproducibleWithAGlobalTestRandom(t *testing.T) {
	gen := func() *Result {
		cryptotest.SetGlobalRandom(t, 42)
		res, err := Generate(caRequest("ca"), nil, own, t0, false, seeded(1))
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, gen().Secret, gen().Secret)
}

func TestSerialNumbersFollowTheRandomSource(t *testing.T) {
	a, err := serialNumber(seeded(1))
	require.NoError(t, err)
	b, err := serialNumber(seeded(1))
	require.NoError(t, err)
	c, err := serialNumber(seeded(2))
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	assert.Positive(t, a.Sign())
	assert.LessOrEqual(t, a.BitLen(), serialBits)
}
