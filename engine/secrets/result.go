package secrets

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Action is what Generate did with a Secret's material, for the plan to show.
type Action string

// The actions of Generate. Every action but Reused means new material, which the plan shows as
// a change of the Secret (without its values) and which restarts or reconfigures its consumers.
const (
	// Reused keeps the existing material byte for byte, so that a plan shows no change.
	Reused Action = "reused"
	// Created is the first generation: no Secret existed.
	Created Action = "created"
	// Renewed replaces material that is about to expire (RenewAfterValidityPercentage, or less
	// than RenewBeforeExpiry left) or whose signing CA changed.
	Renewed Action = "renewed"
	// Rotated replaces material because rotation of its class was requested.
	Rotated Action = "rotated"
	// Regenerated replaces material because the request's configuration changed or the existing
	// Secret cannot be used (not the landscape's own, see Provenance; corrupt; another class).
	Regenerated Action = "regenerated"
)

// Result is the outcome of Generate.
type Result struct {
	// Secret is the desired v1 Secret: the object the component applies like any other.
	Secret *unstructured.Unstructured
	// Action says whether the material is new and why, in one word.
	Action Action
	// Reason explains Action to a human, for example
	// "renewed: 82% of its validity has passed (valid until 2027-03-01T10:00:00Z)". It never
	// contains secret values.
	Reason string
	// Material is the Secret's data; for a CA, what certificates signed by it take as Request.CA.
	Material *Material
	// Foreign, when set, says why the live Secret's material is not the landscape's own
	// (Provenance): it was found and not used, which the plan warns about. It names field
	// managers and lineages, never values.
	Foreign string
}

// Changed reports whether the material differs from the existing Secret's.
func (r *Result) Changed() bool { return r.Action != Reused }
