package readiness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Workload rollouts: the same questions `kubectl rollout status` asks, answered from the object's
// status alone. The workload controllers always write status.observedGeneration, so a missing one
// means the controller has not looked at the object yet (a fresh DaemonSet would otherwise pass
// with zero desired pods). Gardener's resource manager uses the Deployment form of this test for
// ManagedResource health (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md).

// deploymentReady: the controller observed the current spec, every desired replica runs the new
// template and is available, and no old replica is left. A Progressing=False condition with reason
// ProgressDeadlineExceeded is terminal: the controller has given up on the rollout.
func deploymentReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := requireObserved(obj); behind {
		return s
	}
	conds := conditions(obj)
	progressing, hasProgressing := findCondition(conds, "Progressing")
	if hasProgressing && progressing.Status == "False" && progressing.Reason == "ProgressDeadlineExceeded" {
		return terminal("rollout exceeded its progress deadline (" + progressing.describe() + ")")
	}
	want := intOr(obj, 1, "spec", "replicas")
	updated := intOr(obj, 0, "status", "updatedReplicas")
	total := intOr(obj, 0, "status", "replicas")
	available := intOr(obj, 0, "status", "availableReplicas")

	availableCond, hasAvailable := findCondition(conds, "Available")
	var reason string
	rolling := true // a rollout reason explains itself best by Progressing, a shortfall by Available
	switch {
	case updated < want:
		reason = fmt.Sprintf("%d of %d replicas updated", updated, want)
	case total > updated:
		reason = fmt.Sprintf("%d old replicas pending termination", total-updated)
	case available < want:
		reason = fmt.Sprintf("%d of %d replicas available", available, want)
		rolling = false
	default:
		return ready()
	}
	detail := ""
	switch {
	case !rolling && hasAvailable && availableCond.Status != "True":
		detail = "Available: " + availableCond.detail()
	case hasProgressing:
		detail = "Progressing: " + progressing.detail()
	case hasAvailable && availableCond.Status != "True":
		detail = "Available: " + availableCond.detail()
	}
	if paused, _, _ := unstructured.NestedBool(obj.Object, "spec", "paused"); paused {
		detail = joinReasons(nonEmpty(detail, "rollout is paused"))
	}
	return notReady(withDetail(reason, detail))
}

// statefulSetReady: observed, every replica ready, and for a RollingUpdate without a partition every
// pod runs the update revision (currentRevision == updateRevision). With a partition only the pods
// at or above it are updated, so only their count is checked; OnDelete updates only on pod deletion
// and is judged by ready replicas alone.
func statefulSetReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := requireObserved(obj); behind {
		return s
	}
	want := intOr(obj, 1, "spec", "replicas")
	readyReplicas := intOr(obj, 0, "status", "readyReplicas")
	updated := intOr(obj, 0, "status", "updatedReplicas")
	if readyReplicas < want {
		return notReady(fmt.Sprintf("%d of %d replicas ready", readyReplicas, want))
	}
	if !rollingUpdate(obj) {
		return ready()
	}
	partition := intOr(obj, 0, "spec", "updateStrategy", "rollingUpdate", "partition")
	if partition > 0 {
		if wantUpdated := want - partition; updated < wantUpdated {
			return notReady(fmt.Sprintf("%d of %d replicas above partition %d updated", updated, wantUpdated, partition))
		}
		return ready()
	}
	if updated < want {
		return notReady(fmt.Sprintf("%d of %d replicas updated", updated, want))
	}
	current, update := stringField(obj, "status", "currentRevision"), stringField(obj, "status", "updateRevision")
	if update != "" && current != update {
		return notReady(fmt.Sprintf("rolling update to revision %s in progress (current %s)", update, current))
	}
	return ready()
}

// daemonSetReady: observed, and every node that should run a pod runs an available one of the
// current template (updatedNumberScheduled is only required for RollingUpdate: OnDelete pods are
// updated by hand).
func daemonSetReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := requireObserved(obj); behind {
		return s
	}
	desired := intOr(obj, 0, "status", "desiredNumberScheduled")
	available := intOr(obj, 0, "status", "numberAvailable")
	updated := intOr(obj, 0, "status", "updatedNumberScheduled")
	if rollingUpdate(obj) && updated < desired {
		return notReady(fmt.Sprintf("%d of %d pods updated", updated, desired))
	}
	if available < desired {
		return notReady(fmt.Sprintf("%d of %d pods available", available, desired))
	}
	return ready()
}

// jobReady: Complete=True. Failed=True is terminal (the Job controller does not retry past its
// backoff limit or deadline). A suspended Job is not ready but not terminal: whoever suspended it
// (a queueing controller, say) may resume it.
func jobReady(obj *unstructured.Unstructured, _ Options) Status {
	conds := conditions(obj)
	if c, ok := findCondition(conds, "Complete"); ok && c.Status == "True" {
		return ready()
	}
	if c, ok := findCondition(conds, "Failed"); ok && c.Status == "True" {
		return terminal("job failed (" + c.describe() + ")")
	}
	if suspended, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend"); suspended {
		return notReady("job is suspended")
	}
	completions := intOr(obj, 1, "spec", "completions")
	succeeded := intOr(obj, 0, "status", "succeeded")
	active := intOr(obj, 0, "status", "active")
	failed := intOr(obj, 0, "status", "failed")
	reason := fmt.Sprintf("not complete: %d of %d completions succeeded, %d active", succeeded, completions, active)
	if failed > 0 {
		reason += fmt.Sprintf(", %d failed", failed)
	}
	return notReady(reason)
}

// rollingUpdate reports whether a StatefulSet or DaemonSet replaces its pods itself
// (spec.updateStrategy.type RollingUpdate, the default when unset): only then must every pod run
// the current template for the rollout to be done; with OnDelete pods are updated when someone
// deletes them.
func rollingUpdate(obj *unstructured.Unstructured) bool {
	return orDefault(stringField(obj, "spec", "updateStrategy", "type"), "RollingUpdate") == "RollingUpdate"
}

// nonEmpty drops empty strings.
func nonEmpty(parts ...string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
