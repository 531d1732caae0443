package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

// CreateOnly reports whether a rendered object carries render.CreateOnlyAnnotation="true". Any
// value other than "true" and "false" is an error: a misspelt "True" or "yes" must not quietly
// turn an object its consumer deletes into one the engine re-creates on every apply.
func CreateOnly(u *unstructured.Unstructured) (bool, error) {
	v, ok := u.GetAnnotations()[render.CreateOnlyAnnotation]
	switch {
	case !ok || v == "false":
		return false, nil
	case v == "true":
		return true, nil
	}
	return false, fmt.Errorf("annotation %s is %q; it must be \"true\" or \"false\"", render.CreateOnlyAnnotation, v)
}

// planCreateOnly plans a create-only object (render.CreateOnlyAnnotation). It returns nil for
// objects that are not create-only and for those to be created, which planObject plans as usual:
//   - absent, and the state does not record it (or there is no state): create;
//   - absent, but the state records it as applied: something deleted it after the landscape
//     created it (gardenlet deletes its bootstrap kubeconfig, Gardener's "gardenlet"
//     docs/concepts/gardenlet.md); no-op with reason created_once, so that it is neither created
//     again nor reported as missing;
//   - present: no-op whatever the differences, never an update, a replacement or drift. An
//     object of the landscape stays labelled and recorded, and is deleted once no longer
//     rendered; one that exists without the label is left alone with a warning, not adopted
//     (adopting means writing it).
//
// The plan records no resourceVersion for them: a saved plan does not go stale because their
// consumer changed or deleted them, which does not change what apply does.
func planCreateOnly(opts Options, cluster string, d *Desired, obs *observe.Observed) (ch *ObjectChange, warning string, err error) {
	ref := object.RefOf(d.Object)
	on, err := CreateOnly(d.Object)
	if err != nil {
		return nil, "", fmt.Errorf("component %s: %s in cluster %s: %w", d.Component, ref, cluster, err)
	}
	if !on {
		return nil, "", nil
	}
	ch = &ObjectChange{Cluster: cluster, APIVersion: d.Object.GetAPIVersion(), Ref: ref, Action: NoOp}
	live := obs.Objects[ref]
	if live == nil {
		if !createdBefore(opts, cluster, ref) {
			return nil, "", nil
		}
		ch.Reason = Reason{Kind: ReasonCreatedOnce}
		return ch, "", nil
	}
	switch owner := live.GetLabels()[inventory.LandscapeLabel]; {
	case owner == "":
		warning = fmt.Sprintf("%s in cluster %s exists without the label %s; it is create-only, so it is neither adopted nor changed", ref, cluster, inventory.Selector(opts.Landscape))
	case owner != opts.Landscape:
		return nil, "", fmt.Errorf("%s in cluster %s belongs to landscape %q; a landscape never takes over another's objects", ref, cluster, owner)
	}
	return ch, warning, nil
}

// createdBefore says whether the state records that the landscape applied an object: Created
// where the planner provides it, else Tracked; without a state, nothing was.
func createdBefore(opts Options, cluster string, ref object.Ref) bool {
	switch {
	case opts.Created != nil:
		return opts.Created(cluster, ref)
	case opts.Tracked != nil:
		return opts.Tracked(cluster, ref)
	}
	return false
}
