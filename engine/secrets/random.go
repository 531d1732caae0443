package secrets

import (
	"fmt"
	"io"
)

// alphabet is the characters of tokens and passwords: letters and digits only, so that a value
// survives shells, URLs, YAML, basic-auth headers and CSV files (kube-apiserver's token file)
// without quoting. 62 symbols give about 5.95 bits per character.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// lowerAlphabet is the characters of bootstrap token secrets: Kubernetes accepts only lower-case
// letters and digits in token ids and secrets ([a-z0-9]). 36 symbols give about 5.17 bits per
// character, about 83 bits for a 16-character secret.
const lowerAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomString draws n characters of alphabet from random. The same reader contents give the
// same string, which makes tokens and passwords reproducible in tests.
func randomString(random io.Reader, n int) ([]byte, error) {
	return randomFrom(random, alphabet, n)
}

// randomFrom draws n characters of symbols (at most 256 of them) from random, one byte per
// character. limit is the first byte value rejected: the largest multiple of len(symbols) not
// above 256. Bytes at or above it are drawn again, so that every character is equally likely (a
// plain modulo would favour the first 256%len(symbols) characters: 8 of alphabet, 4 of
// lowerAlphabet).
func randomFrom(random io.Reader, symbols string, n int) ([]byte, error) {
	limit := 256 - 256%len(symbols)
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4+8) // one read usually suffices: about 3 % (alphabet) or 1.6 % (lowerAlphabet) of bytes are rejected
	for len(out) < n {
		if _, err := io.ReadFull(random, buf); err != nil {
			return nil, fmt.Errorf("reading randomness: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, symbols[int(b)%len(symbols)])
			if len(out) == n {
				break
			}
		}
	}
	return out, nil
}
