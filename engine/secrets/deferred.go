package secrets

import (
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DeferredValue stands in for key material a plan does not generate (Defer): every data key of
// such a Secret holds it, and so does every value rendered from it (a CA bundle, a kubeconfig's
// certificate), base64-encoded where the field is.
const DeferredValue = "(generated at apply)"

// Defer decides like Generate but never generates: it reuses the existing material where
// Generate would, and otherwise returns the Secret with DeferredValue under each of its class's
// data keys and no issue or expiry time, Action saying what apply will do. Plans that are not
// made against the live clusters (`gardener plan --offline`, `--observed SNAPSHOT`) use it: such
// a plan is never applied as it is (apply plans again against the clusters and generates the
// material then), and key material drawn for it would only make two plans of the same input
// differ, or, written out by `gardener render --offline`, be material anyone could reproduce if
// it were drawn from a fixed seed. Nothing here reads randomness or the clock beyond now.
func Defer(req Request, existing *unstructured.Unstructured, prov Provenance, now time.Time, rotate bool) (*Result, error) {
	req, err := req.normalize()
	if err != nil {
		return nil, err
	}
	var d decision
	switch {
	case req.CA.Deferred() && existing == nil:
		d = decision{action: Created, reason: "created: no secret exists yet"}
	case req.CA.Deferred():
		// The signing CA is new: whatever it signed before is renewed with it.
		d = decision{action: Renewed, reason: "renewed: signing CA changed"}
	default:
		if req.CA != nil {
			if _, _, err := req.CA.signer(); err != nil {
				return nil, fmt.Errorf("%s: signing CA: %w", req, err)
			}
		}
		d = decide(req, existing, prov, now, rotate)
	}
	if d.action == Reused {
		return &Result{
			Secret:   newSecret(req, d.live.data, d.live.annotations),
			Action:   Reused,
			Reason:   d.reason,
			Material: NewMaterial(d.live.data),
		}, nil
	}
	data := map[string][]byte{}
	for _, key := range req.Class.DataKeys() {
		data[key] = []byte(DeferredValue)
	}
	return &Result{
		Secret:   newSecret(req, data, map[string]string{ConfigHashAnnotation: req.configHash()}),
		Action:   d.action,
		Reason:   d.reason + "; generated at apply",
		Foreign:  d.foreign,
		Material: NewMaterial(data),
	}, nil
}

// Deferred reports whether the material was not generated (Defer): its values are
// DeferredValue.
func (m *Material) Deferred() bool {
	if m == nil {
		return false
	}
	for v := range maps.Values(m.Data) {
		if string(v) == DeferredValue {
			return true
		}
	}
	return false
}
