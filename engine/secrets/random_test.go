package secrets

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRandomStringUsesOnlyTheAlphabetAndRejectsBiasedBytes(t *testing.T) {
	// 248..255 would favour the first characters under a plain modulo; they are skipped.
	src := bytes.NewReader(slices.Concat(bytes.Repeat([]byte{248, 255}, 4), []byte{0, 61, 62, 247}, make([]byte, 64)))
	got, err := randomString(src, 4)
	require.NoError(t, err)
	assert.Equal(t, "a9a9", string(got)) // 0 → a, 61 → 9, 62 → a, 247 = 3*62+61 → 9
}

func TestRandomStringLengthsAndAlphabet(t *testing.T) {
	for _, n := range []int{16, 32, 64, 200} {
		got, err := randomString(seeded(byte(n)), n)
		require.NoError(t, err)
		assert.Len(t, got, n)
		for _, c := range got {
			assert.True(t, strings.ContainsRune(alphabet, rune(c)), "%q", c)
		}
	}
}

func TestRandomStringReportsAFailingSource(t *testing.T) {
	_, err := randomString(bytes.NewReader(make([]byte, 3)), 16)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.EqualError(t, err, "reading randomness: unexpected EOF")
}

func TestRandomStringIsRoughlyUniform(t *testing.T) {
	got, err := randomString(seeded(5), 62*1000)
	require.NoError(t, err)
	counts := map[byte]int{}
	for _, c := range got {
		counts[c]++
	}
	assert.Len(t, counts, len(alphabet))
	for c, n := range counts {
		assert.InDelta(t, 1000, n, 150, "%q", c)
	}
}

func TestRandomFromLowerAlphabetRejectsBiasedBytes(t *testing.T) {
	// 252..255 would favour a..d under a plain modulo; they are skipped.
	src := bytes.NewReader(slices.Concat([]byte{252, 255, 253, 254}, []byte{0, 35, 36, 251}, make([]byte, 64)))
	got, err := randomFrom(src, lowerAlphabet, 4)
	require.NoError(t, err)
	assert.Equal(t, "a9a9", string(got)) // 0 → a, 35 → 9, 36 → a, 251 = 6*36+35 → 9
}

func TestRandomFromLowerAlphabetIsRoughlyUniform(t *testing.T) {
	got, err := randomFrom(seeded(6), lowerAlphabet, 36*1000)
	require.NoError(t, err)
	counts := map[byte]int{}
	for _, c := range got {
		counts[c]++
	}
	assert.Len(t, counts, len(lowerAlphabet))
	for c, n := range counts {
		assert.True(t, c >= 'a' && c <= 'z' || c >= '0' && c <= '9', "%q", c)
		assert.InDelta(t, 1000, n, 150, "%q", c)
	}
}
