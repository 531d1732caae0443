package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

func failedShoot(state, at string, codes ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "dev", "namespace": "garden-local", "generation": int64(2)},
		"status": map[string]any{
			"observedGeneration": int64(2),
			"lastOperation":      map[string]any{"type": "Reconcile", "state": state, "lastUpdateTime": at},
			"lastErrors":         []any{map[string]any{"description": "infrastructure failed", "codes": codes}},
		},
	}}
	return u
}

// The retry loop's rule (shootFailedDueToRateLimits and mustRetryNow in
// pkg/controllermanager/controller/shoot/retry/reconciler.go at Gardener v1.120.0): a Shoot that
// Failed with its generation observed and the rate limit code is annotated the retry period after
// its last operation's lastUpdateTime, plus up to the jitter period.
func TestPredictRetry(t *testing.T) {
	retried := failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits)
	retried.SetAnnotations(map[string]string{AnnotationOperation: OperationRetry})
	newSpec := failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits)
	newSpec.SetGeneration(3)
	for _, tc := range []struct {
		name string
		live *unstructured.Unstructured
		want *retryPrediction
	}{
		{name: "failed on rate limits: retried the retry period later, plus up to the jitter", live: failedShoot("Failed", "2026-11-21T11:55:00Z", codeRateLimits),
			want: &retryPrediction{at: time.Date(2026, 11, 21, 12, 5, 0, 0, time.UTC), until: time.Date(2026, 11, 21, 12, 10, 0, 0, time.UTC)}},
		{name: "the retry asked for and not taken up yet", live: retried},
		{name: "failed for another reason: a person must act (Gardener's docs/usage/shoot/shoot_status.md)", live: failedShoot("Failed", "2026-11-21T11:00:00Z", "ERR_INFRA_UNAUTHORIZED")},
		{name: "an operation in Error is retried by gardenlet itself", live: failedShoot("Error", "2026-11-21T11:00:00Z", codeRateLimits)},
		{name: "a new generation not observed yet", live: newSpec},
		{name: "no shoot yet", live: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, predictRetry(tc.live, 10*time.Minute, 5*time.Minute))
		})
	}
}

// The engine never writes the retry annotation; the plan predicts it.
func TestRetryIsPredictedNotWritten(t *testing.T) {
	b, err := newBuilder("dev", values(nil))
	require.NoError(t, err)
	live := failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits)
	out, err := b.render(render.Input{Now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), Observe: observingByName(map[string]*unstructured.Unstructured{"shoots/garden-local/dev": live})})
	require.NoError(t, err)
	shoot := partObject(t, out, "shoot", "Shoot")
	assert.NotContains(t, shoot.GetAnnotations(), AnnotationOperation)
	var retry []render.Prediction
	for _, p := range out.Predictions {
		if p.Controller == "shoot-retry" {
			retry = append(retry, p)
		}
	}
	require.Len(t, retry, 1)
	assert.Equal(t, render.Prediction{
		Actor: "gardener-controller-manager", Controller: "shoot-retry", Cluster: "virtual_garden",
		APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-local", Name: "dev", Action: "update",
		At: time.Date(2026, 11, 21, 11, 10, 0, 0, time.UTC), Until: time.Date(2026, 11, 21, 11, 15, 0, 0, time.UTC),
		Description: "sets gardener.cloud/operation=retry: the shoot's last operation failed on rate limits (ERR_INFRA_RATE_LIMITS_EXCEEDED)",
	}, retry[0])
}
