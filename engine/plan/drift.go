package plan

import "slices"

// People are the field managers of people's writes: kubectl's commands and the server's
// before-first-apply. A field one of them set that the landscape sets differently is drift (an
// edit by hand), which apply takes back without --force-conflicts, unless conflicts are strict
// (Options.StrictConflicts). Every other field manager is a controller (an autoscaler,
// gardener-controller-manager, another operator), whose fields stay conflicts: taking them
// would start a fight that never ends.
//
// The kubectl names are the defaults of its --field-manager flags (k8s.io/kubectl v0.37,
// pkg/cmd/...: AddFieldManagerFlagVar; apply.go's FieldManagerClientSideApply, the server-side
// apply manager "kubectl" and "kubectl-last-applied"). Commands without a flag of their own
// (scale, cordon, drain, rollout undo) write as "kubectl", which the API server derives from
// kubectl's user agent. before-first-apply is the manager the API server gives every field of an
// object without managedFields when it is first applied to (k8s.io/apimachinery,
// pkg/util/managedfields/internal/skipnonapplied.go): someone cleared them, by hand.
//
// Field manager names are chosen by clients, so a controller that calls itself kubectl-edit is
// treated as a person; the rule is about intent, not about trust (docs/cli.md).
var People = []string{
	"before-first-apply",
	"kubectl",
	"kubectl-annotate",
	"kubectl-autoscale",
	"kubectl-client-side-apply",
	"kubectl-create",
	"kubectl-edit",
	"kubectl-expose",
	"kubectl-label",
	"kubectl-last-applied",
	"kubectl-patch",
	"kubectl-replace",
	"kubectl-rollout",
	"kubectl-run",
	"kubectl-set",
	"kubectl-taint",
}

// IsPerson reports whether a field manager is one of People.
func IsPerson(manager string) bool {
	_, found := slices.BinarySearch(People, manager)
	return found
}

// allPeople reports whether every conflict is with a person's field manager (and there is one).
func allPeople(conflicts []Conflict) bool {
	return len(conflicts) > 0 && !slices.ContainsFunc(conflicts, func(c Conflict) bool { return !IsPerson(c.Manager) })
}

// firstController is the first conflict's manager that is not a person, or the first manager
// when all are: the one a reviewer must look at.
func firstController(conflicts []Conflict) string {
	for _, c := range conflicts {
		if !IsPerson(c.Manager) {
			return c.Manager
		}
	}
	return conflicts[0].Manager
}

// DriftManagers are the field managers whose changes of the object apply takes back, sorted,
// without duplicates.
func (o *ObjectChange) DriftManagers() []string {
	var out []string
	for _, d := range o.Drift {
		out = append(out, d.Manager)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
