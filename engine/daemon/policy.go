package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/declarative-gardener/gardener/engine/plan"
)

// Policy says which plans the daemon applies by itself.
type Policy string

// The policies.
const (
	// PolicyAuto applies every plan.
	PolicyAuto Policy = "auto"
	// PolicyApproveDestructive applies plans without deletes or replacements at once, drift
	// repairs included, and so plans whose only deletions are superseded earlier versions of
	// objects they render anew, or deletions the objects' owner asked for (a user deleted their
	// Shoot through the API) (Destructive); a plan that deletes or replaces objects, or makes
	// another controller delete some, waits for an approval naming its hash.
	PolicyApproveDestructive Policy = "approve-destructive"
	// PolicyPlanOnly records plans and applies nothing.
	PolicyPlanOnly Policy = "plan-only"
)

// ParsePolicy reads a --policy flag.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicyAuto, PolicyApproveDestructive, PolicyPlanOnly:
		return p, nil
	}
	return "", fmt.Errorf("policy %q is none of %s, %s, %s", s, PolicyAuto, PolicyApproveDestructive, PolicyPlanOnly)
}

// Destructive reports whether a plan deletes or replaces objects, itself or through other
// controllers (plan.IndirectDeletions: objects dropped from a ManagedResource, which the
// resource manager deletes, and removed worker pools, whose machines machine-controller-manager
// deletes); deleting the earlier versions of an object the plan renders anew under a new name
// (plan.ReasonSuperseded) does not count, nor does a deletion the objects' owner asked for
// (plan.ReasonRequested: the control plane of a Shoot its user deleted), which is theirs to make.
func Destructive(pl *plan.Plan) bool {
	return deletesItself(pl) || len(pl.IndirectDeletions) > 0
}

// deletesItself reports whether the plan deletes or replaces objects with its own requests.
func deletesItself(pl *plan.Plan) bool {
	return pl.Summary.Destroy-pl.Summary.Superseded-pl.Summary.Requested+pl.Summary.Replace > 0
}

// maxListedIndirect bounds how many indirect deletions a decision's reason names.
const maxListedIndirect = 5

// Hash identifies a plan for approvals: the SHA-256 of its JSON form, which is deterministic, so
// that the same changes against the same live objects have the same hash, and a plan that
// changed since it was approved is not applied by the old approval. The live versions of the
// objects the plan leaves as they are do not count: they move without changing what the plan
// does (the daemon's own status ConfigMap, which the landscape_daemon component renders, moves
// with every status the daemon writes; a controller updates a Deployment's status), and an
// approval would otherwise never meet its plan again.
func Hash(pl *plan.Plan) (string, error) {
	b, err := json.Marshal(withoutUnchangedVersions(pl))
	if err != nil {
		return "", fmt.Errorf("plan hash: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// withoutUnchangedVersions is a copy of pl whose no-op objects have no resourceVersion.
func withoutUnchangedVersions(pl *plan.Plan) *plan.Plan {
	cp := *pl
	cp.Components = make([]*plan.Component, len(pl.Components))
	for i, c := range pl.Components {
		cc := *c
		cc.Objects = make([]*plan.ObjectChange, len(c.Objects))
		for j, o := range c.Objects {
			oc := *o
			if oc.Action == plan.NoOp {
				oc.ResourceVersion = ""
			}
			cc.Objects[j] = &oc
		}
		cp.Components[i] = &cc
	}
	return &cp
}

// Decision is what the policy says about a plan.
type Decision struct {
	Apply bool
	// Reason says why in a sentence, for the status and Events.
	Reason string
}

// Decide applies the policy to a plan with changes; approved is the plan hash an operator
// approved ("" for none).
func Decide(p Policy, pl *plan.Plan, hash, approved string) Decision {
	switch {
	case p == PolicyPlanOnly:
		return Decision{Reason: "the policy is plan-only"}
	case p == PolicyAuto:
		return Decision{Apply: true, Reason: "the policy applies every plan"}
	case !Destructive(pl) && pl.Summary.Requested > 0:
		return Decision{Apply: true, Reason: "the plan deletes only what the objects' owners asked to delete, and replaces nothing"}
	case !Destructive(pl) && pl.Summary.Superseded > 0:
		return Decision{Apply: true, Reason: "the plan deletes only earlier versions of objects it renders anew, and replaces nothing"}
	case !Destructive(pl):
		return Decision{Apply: true, Reason: "the plan deletes and replaces nothing"}
	case approved != "" && approved == hash:
		return Decision{Apply: true, Reason: "the plan was approved"}
	}
	why := "the plan deletes or replaces objects"
	if n := len(pl.IndirectDeletions); n > 0 {
		var listed []string
		for _, d := range pl.IndirectDeletions[:min(n, maxListedIndirect)] {
			listed = append(listed, d.String())
		}
		if n > maxListedIndirect {
			listed = append(listed, fmt.Sprintf("%d more in the plan's indirect_deletions", n-maxListedIndirect))
		}
		why = "the plan makes other controllers delete what it no longer renders (" + strings.Join(listed, "; ") + ")"
		if deletesItself(pl) {
			why = "the plan deletes or replaces objects, and makes other controllers delete what it no longer renders (" + strings.Join(listed, "; ") + ")"
		}
	}
	return Decision{Reason: fmt.Sprintf("%s and waits for approval: gardener approve %s", why, hash)}
}
