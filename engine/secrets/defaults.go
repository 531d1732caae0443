package secrets

import "time"

// Defaults and limits.
const (
	// DefaultCAValidity is ten years: Gardener's shoot CA certificates are valid ten years
	// (Gardener's "Shoot Credentials Rotation"
	// docs/usage/shoot-operations/shoot_credentials_rotation.md).
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// DefaultCertValidity is one year, the signing duration Gardener's garden cluster uses for
	// gardenlet's client certificate (`--cluster-signing-duration` 1y,
	// Gardener's "gardenlet" docs/concepts/gardenlet.md).
	DefaultCertValidity = 365 * 24 * time.Hour
	// DefaultRSABits is the size of generated RSA keys. Gardener's documentation names no key size;
	// 3072 bits is the NIST recommendation for material that lives beyond 2030.
	DefaultRSABits = 3072
	// MinRSABits is the smallest RSA key accepted.
	MinRSABits = 2048
	// DefaultTokenLength is the length of a generated token in characters (about 381 bits).
	DefaultTokenLength = 64
	// DefaultPasswordLength is the length of a generated password in characters (about 190 bits).
	DefaultPasswordLength = 32
	// MinRandomLength is the shortest token or password accepted (about 95 bits).
	MinRandomLength = 16

	// RenewAfterValidityPercentage is when expiring material is renewed: Gardener's secrets
	// manager renews at 80 % of the validity (Gardener's "Secrets
	// Management" docs/development/secrets_management.md).
	RenewAfterValidityPercentage = 80
	// RenewBeforeExpiry renews material with less than ten days left even when less than 80 % of a
	// short validity has passed, whichever comes first, as Gardener does (Gardener's
	// docs/development/secrets_management.md).
	RenewBeforeExpiry = 10 * 24 * time.Hour
	// ClockSkew is how far before "now" a certificate's NotBefore lies, so that a peer whose
	// clock runs a little behind still accepts a certificate issued a moment ago.
	ClockSkew = time.Minute
)
