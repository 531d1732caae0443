package project

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Stale holds the Stale Projects controller's settings (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md). Gardener's documentation gives no defaults; the schema's
// are gardener-controller-manager's own (30, 14 and 90 days).
type Stale struct {
	// MinimumLifetimeDays: projects younger than this, or active within it, are never stale.
	MinimumLifetimeDays int `json:"minimum_lifetime_days"`
	// GracePeriodDays: a stale project gets its auto-delete time only once it has been stale
	// this long.
	GracePeriodDays int `json:"grace_period_days"`
	// ExpirationDays: a stale project is deleted this long after it became stale.
	ExpirationDays int `json:"expiration_days"`
	// Skip opts the project out, as the namespace annotation does (Gardener's
	// docs/concepts/controller-manager.md).
	Skip bool `json:"skip"`
}

// SkipStaleCheckAnnotation on the project namespace opts a project out of stale detection
// (Gardener's docs/concepts/controller-manager.md).
const SkipStaleCheckAnnotation = "project.gardener.cloud/skip-stale-check"

// StaleSinceAnnotation keeps on the Project when the engine first found it stale, where
// gardener-controller-manager keeps .status.staleSinceTimestamp, which a landscape cannot write:
// the auto-delete time counts from it.
const StaleSinceAnnotation = "declarative-gardener.io/stale-since"

// days are the stale check's durations: the stale block's, or without one the block's defaults.
func (s *Stale) days() (minimum, grace, expiration time.Duration) {
	if s == nil {
		d := staleDefaults()
		s = &d
	}
	day := func(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
	return day(s.MinimumLifetimeDays), day(s.GracePeriodDays), day(s.ExpirationDays)
}

// staleDefaults are the stale block's defaults.
var staleDefaults = component.BlockDefaults[Stale](typeSchema, "stale")

// staleness is what the stale check found.
type staleness struct {
	// since is when the project became stale; zero when it is not stale.
	since time.Time
	// autoDelete is when it is deleted; zero until the grace period has passed.
	autoDelete time.Time
	// revisit is when the finding changes by time alone.
	revisit time.Time
	notice  string
	// checked says the project is under the stale check (not opted out): once deleted as stale
	// it stays deleted while its block stays.
	checked bool
}

var (
	shootsList             = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	backupEntriesList      = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "backupentries"}
	secretBindingsList     = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "secretbindings"}
	credentialsBindingList = render.ListRef{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}
)

// checkStale decides whether the project is stale the way the Stale Projects controller does
// (Gardener's docs/concepts/controller-manager.md): a project older than the minimum lifetime,
// without activity within it, whose namespace holds no Shoots, no BackupEntries and no Secrets or
// Quotas that a binding used by a Shoot (in any namespace) refers to. A stale project is deleted
// ExpirationDays after it became stale, once it has been stale for GracePeriodDays; an auto-delete
// time Gardener already set is only moved later (Gardener's docs/concepts/controller-manager.md). A
// project the landscape has not created yet, or whose namespace carries the skip annotation, is
// never stale.
func checkStale(in render.Input, v Values, liveNS *unstructured.Unstructured) (staleness, error) {
	var st staleness
	if v.Stale != nil && v.Stale.Skip {
		return st, nil
	}
	if liveNS != nil && liveNS.GetAnnotations()[SkipStaleCheckAnnotation] == "true" {
		return st, nil
	}
	st.checked = true
	live, err := in.Observed(render.LiveRef{Cluster: v.Cluster.Name, Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects", Name: v.Name})
	if err != nil {
		return st, fmt.Errorf("project %s: read the Project: %w", v.Name, err)
	}
	if live == nil {
		return st, nil
	}
	minimum, grace, expiration := v.Stale.days()
	created := live.GetCreationTimestamp().Time.UTC()
	active := created
	if s, ok, _ := unstructured.NestedString(live.Object, "status", "lastActivityTimestamp"); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(active) {
			active = t
		}
	}
	if young := render.Earliest(laterThan(in.Now, created.Add(minimum)), laterThan(in.Now, active.Add(minimum))); !young.IsZero() {
		st.revisit = young
		return st, nil
	}
	ns := NamespaceOf(v)
	use, err := inUse(in, v, ns)
	if err != nil || use != "" {
		return st, err
	}

	st.since = in.Now
	if s, ok, _ := unstructured.NestedString(live.Object, "status", "staleSinceTimestamp"); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			st.since = t
		}
	} else if t, err := time.Parse(time.RFC3339, live.GetAnnotations()[StaleSinceAnnotation]); err == nil {
		st.since = t
	}
	what := fmt.Sprintf("project %s is stale since %s: no shoots, backup entries, or secrets and quotas in use by shoots in %s, and no activity since %s",
		v.Name, st.since.UTC().Format(time.RFC3339), ns, active.UTC().Format(time.RFC3339))
	if in.Now.Before(st.since.Add(grace)) {
		st.revisit = st.since.Add(grace)
		st.notice = fmt.Sprintf("%s; unless it is used again, it is deleted %d days after that (the grace period of %d days ends at %s)",
			what, int(expiration.Hours()/24), int(grace.Hours()/24), st.revisit.UTC().Format(time.RFC3339))
		return st, nil
	}
	st.autoDelete = st.since.Add(expiration)
	if s, ok, _ := unstructured.NestedString(live.Object, "status", "staleAutoDeleteTimestamp"); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(st.autoDelete) {
			st.autoDelete = t // only ever moved later (Gardener's docs/concepts/controller-manager.md)
		}
	}
	st.revisit = laterThan(in.Now, st.autoDelete) // the daemon plans the deletion then
	st.notice = fmt.Sprintf("%s; unless it is used again, it is deleted at %s", what, st.autoDelete.UTC().Format(time.RFC3339))
	return st, nil
}

// laterThan is t when it is after now, else zero.
func laterThan(now, t time.Time) time.Time {
	if t.After(now) {
		return t
	}
	return time.Time{}
}

// inUse names what keeps the project in use (Gardener's docs/concepts/controller-manager.md), ""
// when nothing does.
func inUse(in render.Input, v Values, ns string) (string, error) {
	list := func(ref render.ListRef, namespace string) ([]unstructured.Unstructured, error) {
		ref.Cluster, ref.Namespace = v.Cluster.Name, namespace
		items, err := in.Listed(ref)
		if err != nil {
			return nil, fmt.Errorf("project %s: list the %s: %w", v.Name, ref.Resource, err)
		}
		return items, nil
	}
	shoots, err := list(shootsList, "")
	if err != nil {
		return "", err
	}
	for _, s := range shoots {
		if s.GetNamespace() == ns {
			return "shoot " + s.GetName(), nil
		}
	}
	entries, err := list(backupEntriesList, ns)
	if err != nil {
		return "", err
	}
	if len(entries) > 0 {
		return "backup entry " + entries[0].GetName(), nil
	}
	// The bindings the shoots use, by namespace/name, and what they refer to in the project.
	used := map[string]bool{}
	for _, s := range shoots {
		for _, field := range []string{"secretBindingName", "credentialsBindingName"} {
			if name, _, _ := unstructured.NestedString(s.Object, "spec", field); name != "" {
				used[field+"/"+s.GetNamespace()+"/"+name] = true
			}
		}
	}
	for _, b := range []struct {
		ref   render.ListRef
		field string
		path  []string
	}{
		{secretBindingsList, "secretBindingName", []string{"secretRef"}},
		{credentialsBindingList, "credentialsBindingName", []string{"credentialsRef"}},
	} {
		bindings, err := list(b.ref, "")
		if err != nil {
			return "", err
		}
		for _, binding := range bindings {
			if !used[b.field+"/"+binding.GetNamespace()+"/"+binding.GetName()] {
				continue
			}
			if ref, _, _ := unstructured.NestedStringMap(binding.Object, b.path...); ref["namespace"] == ns ||
				(ref["namespace"] == "" && binding.GetNamespace() == ns) {
				return "secret " + ref["name"] + " of a binding in use", nil
			}
			quotas, _, _ := unstructured.NestedSlice(binding.Object, "quotas")
			for _, q := range quotas {
				if m, ok := q.(map[string]any); ok && m["namespace"] == ns {
					return fmt.Sprintf("quota %v of a binding in use", m["name"]), nil
				}
			}
		}
	}
	return "", nil
}

// staleOutput adds the stale check's findings to the project's output: the stale-since
// annotation on the Project, the notice, the time the finding changes and, once there is one,
// the auto-delete time as the project's lifetime, which deletes it under the destroy
// protection (Projects and garden-* namespaces need --allow-destroy or the daemon's approval).
func staleOutput(out *render.Output, st staleness, name string) {
	out.Revisit = render.Earliest(out.Revisit, st.revisit)
	if st.checked {
		// No end known now; a deletion as stale that an earlier apply began stays recorded.
		out.Lifetime = &render.Lifetime{Reason: fmt.Sprintf("project %s stale", name)}
	}
	if st.since.IsZero() {
		return
	}
	for _, o := range out.Objects {
		if o.Object.GetKind() == Kind && strings.HasPrefix(o.Object.GetAPIVersion(), "core.gardener.cloud/") {
			a := o.Object.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[StaleSinceAnnotation] = st.since.UTC().Format(time.RFC3339)
			o.Object.SetAnnotations(a)
		}
	}
	out.Notices = append(out.Notices, st.notice)
	out.Conditions = append(out.Conditions, render.Condition{Type: "Stale", Status: "True", Reason: "NotInUse", Message: st.notice})
	if !st.autoDelete.IsZero() {
		out.Lifetime = &render.Lifetime{Ends: st.autoDelete, Reason: fmt.Sprintf("project %s stale since %s", name, st.since.UTC().Format(time.RFC3339))}
	}
}
