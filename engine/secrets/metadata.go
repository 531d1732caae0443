package secrets

// The label and annotations of generated Secrets. They carry only non-secret facts, so that a
// plan can explain a decision (and a human can see a Secret's age) without reading its data.
// They live under their own prefix so that they never collide with the inventory's
// declarative-gardener.io/config-hash, which hashes the rendered object.
const (
	// ClassLabel holds the Class of a generated Secret. A label (not an annotation) so that
	// `--rotate <class>` and kubectl can select all Secrets of a class.
	ClassLabel = "secrets.declarative-gardener.io/class"
	// ConfigHashAnnotation holds a hash of the normalised request (class, names, SANs, validity,
	// length) the material was generated for. A different hash means the request changed and the
	// material is regenerated.
	ConfigHashAnnotation = "secrets.declarative-gardener.io/config-hash"
	// IssuedAtAnnotation holds when the material was generated (RFC 3339, UTC).
	IssuedAtAnnotation = "secrets.declarative-gardener.io/issued-at"
	// ValidUntilAnnotation holds the end of a certificate's validity (RFC 3339, UTC). Absent for
	// classes that do not expire.
	ValidUntilAnnotation = "secrets.declarative-gardener.io/valid-until"
)
