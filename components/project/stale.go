package project

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/engine/render"
)

// staleControllerName is the loop the stale predictions are of (ControllerName in
// pkg/controllermanager/controller/project/stale at Gardener v1.120.0).
const staleControllerName = "project-stale"

// staleness is what the Stale Projects controller will do to the project, as the plan's time sees
// it, and what follows for the instance.
type staleness struct {
	predictions []render.Prediction
	// revisit is when the finding changes by time alone.
	revisit time.Time
	// lifetime ends when the controller deletes the project; nil for a project outside the
	// check (opted out).
	lifetime *render.Lifetime
	// condition reports a stale project for the daemon's status.
	condition *render.Condition
}

var (
	shootsList             = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	backupEntriesList      = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "backupentries"}
	secretBindingsList     = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "secretbindings"}
	credentialsBindingList = render.ListRef{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}
)

// checkStale predicts the Stale Projects controller by its rules and the controller manager's
// settings (Reconciler.reconcile and markProjectAsStale in
// pkg/controllermanager/controller/project/stale/reconciler.go at v1.120.0; Gardener's "Gardener
// Controller Manager" docs/concepts/controller-manager.md). The controller checks a project when it
// is created or changed and then every staleSyncPeriod, so what it does happens at its first check
// from a time on: the predictions give that time and the period. A project is not stale while its
// namespace opts out, while it is younger than minimumLifetimeDays or was active within them, or
// while shoots, backup entries, or secrets and quotas shoots use keep it in use (then any stale
// timestamps are cleared). A stale project gets status.staleSinceTimestamp at the first check;
// once it has been stale for staleGracePeriodDays, status.staleAutoDeleteTimestamp (the stale time
// plus staleExpirationTimeDays, only ever moved later); and from that time on the controller
// deletes it. The instance's lifetime ends then, by the controller (render.Lifetime.EndedBy):
// the engine records it so as not to create the Project again, and deletes nothing itself. Only a
// stale time gardener-controller-manager wrote ends the lifetime; predictions alone do not.
func checkStale(in render.Input, v Values, l live) (staleness, error) {
	var st staleness
	settings := v.settings()
	sync := settings.SyncPeriod()
	var liveSince, liveAutoDelete time.Time
	if l.project != nil {
		liveSince = statusTime(l.project, "staleSinceTimestamp")
		liveAutoDelete = statusTime(l.project, "staleAutoDeleteTimestamp")
	}
	predict := func(at time.Time, action, description string) {
		st.predictions = append(st.predictions, render.Prediction{
			Actor: controllerManager, Controller: staleControllerName, Cluster: v.Cluster.Name,
			APIVersion: APIVersion, Kind: Kind, Name: v.Name, Action: action, At: at, Until: at.Add(sync), Description: description,
		})
	}
	notStale := func(why string) {
		if !liveSince.IsZero() || !liveAutoDelete.IsZero() {
			predict(in.Now, "update", "marks the project as no longer stale ("+why+"): clears status.staleSinceTimestamp and status.staleAutoDeleteTimestamp")
		}
	}
	if skipsStaleCheck(v, l.namespace) {
		notStale("its namespace opts out with " + SkipStaleCheckAnnotation)
		return st, nil
	}
	// No end known until the controller finds the project stale; a deletion an earlier plan
	// recorded stays recorded.
	st.lifetime = &render.Lifetime{Reason: fmt.Sprintf("project %s stale", v.Name), EndedBy: controllerManager}
	if l.project == nil {
		return st, nil
	}
	minimum := projectcontroller.Days(settings.MinimumLifetimeDays)
	eligible := l.project.GetCreationTimestamp().Time.UTC().Add(minimum)
	if active := statusTime(l.project, "lastActivityTimestamp"); active.Add(minimum).After(eligible) {
		eligible = active.Add(minimum)
	}
	if eligible.After(in.Now) {
		notStale(fmt.Sprintf("younger than, or active within, %d days", settings.MinimumLifetimeDays))
		st.revisit = eligible
		return st, nil
	}
	use, err := inUse(in, v, NamespaceOf(v))
	if err != nil {
		return st, err
	}
	if use != "" {
		notStale("in use by " + use)
		return st, nil
	}

	since := liveSince
	if since.IsZero() {
		since = in.Now
		predict(in.Now, "update", fmt.Sprintf("marks the project stale: status.staleSinceTimestamp, since no shoots, backup entries, or secrets and quotas in use by shoots are in %s, and no activity within %d days",
			NamespaceOf(v), settings.MinimumLifetimeDays))
	}
	graceEnd := since.Add(projectcontroller.Days(settings.StaleGracePeriodDays))
	autoDelete := since.Add(projectcontroller.Days(settings.StaleExpirationTimeDays))
	if liveAutoDelete.After(autoDelete) {
		autoDelete = liveAutoDelete // only ever moved later
	}
	switch {
	case in.Now.Before(graceEnd):
		if !liveAutoDelete.IsZero() {
			predict(in.Now, "update", "clears status.staleAutoDeleteTimestamp: the stale grace period has not passed")
		}
		predict(graceEnd, "update", fmt.Sprintf("sets status.staleAutoDeleteTimestamp to %s, once the project has been stale for the grace period of %d days",
			autoDelete.UTC().Format(time.RFC3339), settings.StaleGracePeriodDays))
	case !liveAutoDelete.Equal(autoDelete):
		predict(in.Now, "update", "sets status.staleAutoDeleteTimestamp to "+autoDelete.UTC().Format(time.RFC3339))
	}
	deleteAt := autoDelete
	if graceEnd.After(deleteAt) {
		deleteAt = graceEnd // the auto-delete time is set, and acted on, at the first check after the grace period
	}
	predict(deleteAt, "delete", fmt.Sprintf("deletes the stale project (confirmed with confirmation.gardener.cloud/deletion=true), %d days after it became stale; %s",
		settings.StaleExpirationTimeDays, namespaceFate(l.namespace)))
	st.revisit = render.Earliest(laterThan(in.Now, graceEnd), laterThan(in.Now, deleteAt))
	message := fmt.Sprintf("project %s is stale since %s: gardener-controller-manager deletes it between %s and %s unless it is used again",
		v.Name, since.UTC().Format(time.RFC3339), deleteAt.UTC().Format(time.RFC3339), deleteAt.Add(sync).UTC().Format(time.RFC3339))
	st.condition = &render.Condition{Type: "Stale", Status: "True", Reason: "NotInUse", Message: message}
	if !liveSince.IsZero() {
		st.lifetime = &render.Lifetime{Ends: deleteAt, Reason: fmt.Sprintf("project %s stale since %s", v.Name, liveSince.UTC().Format(time.RFC3339)), EndedBy: controllerManager}
	}
	return st, nil
}

// skipsStaleCheck reports whether the project is outside the stale check: the landscape opts it
// out (and writes the annotation), or its namespace carries the annotation.
func skipsStaleCheck(v Values, ns *unstructured.Unstructured) bool {
	if v.Stale != nil && v.Stale.Skip {
		return true
	}
	if ns == nil {
		return false
	}
	skip, _ := strconv.ParseBool(ns.GetAnnotations()[SkipStaleCheckAnnotation])
	return skip
}

// namespaceFate says what becomes of the namespace when the Project is deleted
// (releaseNamespace in pkg/controllermanager/controller/project/project/reconciler.go at
// v1.120.0).
func namespaceFate(ns *unstructured.Unstructured) string {
	if ns != nil && ns.GetAnnotations()[AnnotationKeepAfterProjectDeletion] == "true" {
		return "the namespace stays, without the project's labels"
	}
	return "its namespace is deleted with it"
}

// statusTime reads an RFC 3339 time of the live object's status; zero when absent.
func statusTime(u *unstructured.Unstructured, field string) time.Time {
	s, _, _ := unstructured.NestedString(u.Object, "status", field)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// addTo adds the findings to the instance's output.
func (st staleness) addTo(out *render.Output) {
	out.Predictions = append(out.Predictions, st.predictions...)
	out.Revisit = render.Earliest(out.Revisit, st.revisit)
	out.Lifetime = st.lifetime
	if st.condition != nil {
		out.Conditions = append(out.Conditions, *st.condition)
	}
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
