package shoot

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Retrying shoots that failed on rate limits is gardener-controller-manager's (its retry loop,
// shoot-retry, pkg/controllermanager/controller/shoot/retry/reconciler.go at Gardener v1.120.0):
// a Shoot whose last operation Failed with its generation observed and an error code
// ERR_INFRA_RATE_LIMITS_EXCEEDED gets gardener.cloud/operation=retry the retry period after the
// operation's lastUpdateTime, plus up to the jitter period at random. The shoot block never writes
// the annotation; it predicts it.
const (
	// AnnotationOperation is Gardener's one-shot operation annotation (Gardener's "Trigger Shoot
	// Operations Through Annotations" docs/usage/shoot-operations/shoot_operations.md).
	AnnotationOperation = "gardener.cloud/operation"
	// OperationRetry asks gardenlet to retry a failed shoot (Gardener's
	// docs/usage/shoot-operations/shoot_operations.md).
	OperationRetry = "retry"
	// codeRateLimits is the error code the retry loop acts on (Gardener's "Shoot Status"
	// docs/usage/shoot/shoot_status.md).
	codeRateLimits = "ERR_INFRA_RATE_LIMITS_EXCEEDED"
)

// retryPrediction is when the retry loop annotates the Shoot: at an instant in [at, until).
type retryPrediction struct {
	at, until time.Time
}

// predictRetry looks at the live Shoot (nil when it does not exist): nil when the loop leaves it
// alone.
func predictRetry(live *unstructured.Unstructured, period, jitter time.Duration) *retryPrediction {
	if live == nil || !failedOnRateLimits(live) {
		return nil
	}
	if live.GetAnnotations()[AnnotationOperation] == OperationRetry {
		return nil // asked for already, not taken up yet
	}
	s, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "lastUpdateTime")
	failedAt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	due := failedAt.Add(period)
	return &retryPrediction{at: due, until: due.Add(jitter)}
}

// failedOnRateLimits is the loop's shootFailedDueToRateLimits: the last operation Failed, the
// generation observed, and a last error with the rate limit code.
func failedOnRateLimits(live *unstructured.Unstructured) bool {
	state, _, _ := unstructured.NestedString(live.Object, "status", "lastOperation", "state")
	observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
	if state != "Failed" || observed != live.GetGeneration() {
		return false
	}
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

// retryPredictions is the retry loop's annotation as the plan shows it.
func (b *builder) retryPredictions() []render.Prediction {
	r := b.retry
	if r == nil {
		return nil
	}
	return []render.Prediction{b.shootPrediction("shoot-retry", r.at, r.until,
		fmt.Sprintf("sets %s=%s: the shoot's last operation failed on rate limits (%s)", AnnotationOperation, OperationRetry, codeRateLimits))}
}
