package secrets

import (
	"fmt"
	"io"
)

// alphabet is the characters of tokens and passwords: letters and digits only, so that a value
// survives shells, URLs, YAML, basic-auth headers and CSV files (kube-apiserver's token file)
// without quoting. 62 symbols give about 5.95 bits per character.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// rejectFrom is the first byte value rejected: the largest multiple of len(alphabet) not above
// 256. Bytes at or above it are drawn again, so that every character is equally likely (a plain
// modulo would favour the first 8 characters).
const rejectFrom = 256 - 256%len(alphabet)

// randomString draws n characters of alphabet from random. The same reader contents give the
// same string, which makes tokens and passwords reproducible in tests.
func randomString(random io.Reader, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4+8) // one read usually suffices: about 3 % of bytes are rejected
	for len(out) < n {
		if _, err := io.ReadFull(random, buf); err != nil {
			return nil, fmt.Errorf("reading randomness: %w", err)
		}
		for _, b := range buf {
			if int(b) >= rejectFrom {
				continue
			}
			out = append(out, alphabet[int(b)%len(alphabet)])
			if len(out) == n {
				break
			}
		}
	}
	return out, nil
}
