package secrets

import (
	"fmt"
	"maps"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// decision is what to do with a request given the live Secret. It depends only on the request,
// the live Secret, the time and the rotate flag, never on randomness, so that two plans of the
// same landscape at the same moment decide the same.
type decision struct {
	action Action
	reason string
	live   *liveSecret // set when reused
	// foreign says why the existing material is not the landscape's own (Provenance); its keys
	// are then never carried over.
	foreign string
}

// decide chooses between reusing the live Secret and generating new material, in this order:
// nothing exists, the live Secret's material is not the landscape's own, rotation was asked, the
// live Secret is unusable or was generated for another class or configuration, the signing CA
// changed, the validity is mostly used up.
func decide(req Request, existing *unstructured.Unstructured, prov Provenance, now time.Time, rotate bool) decision {
	if existing == nil {
		return decision{action: Created, reason: "created: no secret exists yet"}
	}
	if why := foreignReason(req, existing, prov); why != "" && prov.Imported {
		return decideImported(req, existing, now, rotate)
	} else if why != "" {
		d := regenerate("foreign key material was found and not used: %s", why)
		d.foreign = why
		return d
	}
	if rotate {
		return decision{action: Rotated, reason: fmt.Sprintf("rotated: rotation of the %s secrets was requested", req.Class)}
	}
	live, err := readLive(existing)
	if err != nil {
		return regenerate("the existing secret is unusable: %v", err)
	}
	switch hash := req.configHash(); {
	case live.class == "":
		return regenerate("the existing secret has no %s label, gardener did not generate it", ClassLabel)
	case live.class != req.Class:
		return regenerate("the class changed from %s to %s", live.class, req.Class)
	case live.configHash != hash:
		return regenerate("its configuration changed (config hash %s, was %q)", hash, live.configHash)
	}
	live.data = onlyKeys(live.data, req.Class.DataKeys())
	in, err := inspect(req, live.data)
	if err != nil {
		return regenerate("the existing material is unusable: %v", err)
	}
	if in.caChanged {
		return decision{action: Renewed, reason: "renewed: signing CA changed"}
	}
	if !req.Class.expires() {
		return decision{action: Reused, reason: "reused: unchanged", live: live}
	}
	return decideByValidity(in.notBefore, in.notAfter, now, live)
}

// decideImported decides for a Secret an import block adopts whose material is not (yet) the
// landscape's own: its material is reused when it is usable and current, without the class label
// and config hash a generated Secret carries (apply adds them), and renewed otherwise like the
// landscape's own.
func decideImported(req Request, existing *unstructured.Unstructured, now time.Time, rotate bool) decision {
	if rotate {
		return decision{action: Rotated, reason: fmt.Sprintf("rotated: rotation of the %s secrets was requested", req.Class)}
	}
	live, err := readLive(existing)
	if err != nil {
		return regenerate("the imported secret is unusable: %v", err)
	}
	live.data = onlyKeys(live.data, req.Class.DataKeys())
	in, err := inspect(req, live.data)
	if err != nil {
		return regenerate("the imported material is unusable: %v", err)
	}
	if in.caChanged {
		return decision{action: Renewed, reason: "renewed: the imported certificate was not signed by its CA"}
	}
	// From now on it carries the landscape's configuration hash, which later plans check.
	live.annotations = maps.Clone(live.annotations)
	live.annotations[ConfigHashAnnotation] = req.configHash()
	live.configHash = req.configHash()
	if req.Class.expires() {
		if d := decideByValidity(in.notBefore, in.notAfter, now, live); d.action != Reused {
			return d
		}
	}
	return decision{action: Reused, reason: "imported: the key material of the existing Secret is adopted (import block)", live: live}
}

// decideByValidity renews material at RenewAfterValidityPercentage of its validity or when less
// than RenewBeforeExpiry is left, whichever comes first (Gardener's
// docs/development/secrets_management.md), and reuses it
// otherwise.
func decideByValidity(notBefore, notAfter, now time.Time, live *liveSecret) decision {
	until := notAfter.UTC().Format(time.RFC3339)
	used := now.Sub(notBefore).Seconds() / notAfter.Sub(notBefore).Seconds()
	percent := int(math.Floor(used * 100))
	switch {
	case !now.Before(notAfter):
		return decision{action: Renewed, reason: fmt.Sprintf("renewed: it expired at %s", until)}
	case used >= RenewAfterValidityPercentage/100.0:
		return decision{action: Renewed, reason: fmt.Sprintf("renewed: %d%% of its validity has passed (valid until %s)", percent, until)}
	case notAfter.Sub(now) < RenewBeforeExpiry:
		return decision{action: Renewed, reason: fmt.Sprintf("renewed: less than %d days of its validity are left (valid until %s)", int(RenewBeforeExpiry.Hours()/24), until)}
	}
	return decision{action: Reused, reason: fmt.Sprintf("reused: %d%% of its validity has passed (valid until %s)", max(percent, 0), until), live: live}
}

// regenerate is a Regenerated decision with a formatted reason.
func regenerate(format string, args ...any) decision {
	return decision{action: Regenerated, reason: "regenerated: " + fmt.Sprintf(format, args...)}
}

// onlyKeys is data restricted to keys: keys gardener does not generate are not carried over, so a
// key added out of band shows up in the plan as drift.
func onlyKeys(data map[string][]byte, keys []string) map[string][]byte {
	out := maps.Clone(data)
	maps.DeleteFunc(out, func(k string, _ []byte) bool {
		for _, want := range keys {
			if k == want {
				return false
			}
		}
		return true
	})
	return out
}
