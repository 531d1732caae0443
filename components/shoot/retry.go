package shoot

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The Shoot Retry loop of gardener-controller-manager "retries only failed Shoots with an error
// code ERR_INFRA_RATE_LIMITS_EXCEEDED" (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md): a rate limit of the cloud provider heals by itself, while a
// Failed operation is otherwise not retried automatically (Gardener's "Shoot Status"
// docs/usage/shoot/shoot_status.md). The shoot block does the same as behaviour of the landscape: a
// live Shoot that failed on rate limits gets Gardener's retry operation (Gardener's "Trigger Shoot
// Operations Through Annotations" docs/usage/shoot-operations/shoot_operations.md) once retryAfter
// has passed since its operation failed, and the daemon runs a cycle then.
const (
	// AnnotationOperation is Gardener's one-shot operation annotation (Gardener's
	// docs/usage/shoot-operations/shoot_operations.md).
	AnnotationOperation = "gardener.cloud/operation"
	// OperationRetry asks gardenlet to retry a failed shoot (Gardener's
	// docs/usage/shoot-operations/shoot_operations.md).
	OperationRetry = "retry"
	// codeRateLimits is the error code the retry loop acts on (Gardener's
	// docs/usage/shoot/shoot_status.md).
	codeRateLimits = "ERR_INFRA_RATE_LIMITS_EXCEEDED"
)

// retryAfter is how long after a failure on rate limits the retry comes. Gardener's documentation
// names no period; ten minutes leaves a provider's rate limit time to recover without leaving a
// shoot broken for long.
const retryAfter = 10 * time.Minute

// retryDecision is whether the Shoot gets the retry operation now, and when otherwise.
type retryDecision struct {
	retry bool
	note  string
	// next is when the retry comes due; zero when none waits.
	next time.Time
}

// decideRetry looks at the live Shoot (nil when it does not exist).
func decideRetry(live *unstructured.Unstructured, now time.Time) retryDecision {
	if live == nil || live.GetDeletionTimestamp() != nil {
		return retryDecision{}
	}
	state, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "state")
	if state != "Failed" || !failedOnRateLimits(live) {
		return retryDecision{}
	}
	if live.GetAnnotations()[AnnotationOperation] == OperationRetry {
		return retryDecision{retry: true} // asked for already, not taken up yet
	}
	var failedAt time.Time
	if s, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "lastUpdateTime"); s != "" {
		failedAt, _ = time.Parse(time.RFC3339, s)
	}
	if due := failedAt.Add(retryAfter); !failedAt.IsZero() && now.Before(due) {
		return retryDecision{next: due}
	}
	return retryDecision{retry: true, note: fmt.Sprintf("retry: the shoot's last operation failed on rate limits (%s)", codeRateLimits)}
}

// failedOnRateLimits reports whether a last error of the Shoot carries the rate limit code.
func failedOnRateLimits(live *unstructured.Unstructured) bool {
	errs, _, _ := unstructured.NestedSlice(live.Object, "status", "lastErrors")
	for _, e := range errs {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		codes, _, _ := unstructured.NestedStringSlice(m, "codes")
		if slices.Contains(codes, codeRateLimits) {
			return true
		}
	}
	return false
}
