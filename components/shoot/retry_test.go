package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func failedShoot(state, at string, codes ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
		"lastOperation": map[string]any{"type": "Reconcile", "state": state, "lastUpdateTime": at},
		"lastErrors":    []any{map[string]any{"description": "infrastructure failed", "codes": codes}},
	}}}
	return u
}

func TestDecideRetry(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	retried := failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits)
	retried.SetAnnotations(map[string]string{AnnotationOperation: OperationRetry})
	deleting := failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits)
	ts := metav1.NewTime(now)
	deleting.SetDeletionTimestamp(&ts)
	for _, tc := range []struct {
		name      string
		live      *unstructured.Unstructured
		wantRetry bool
		wantNext  time.Time
	}{
		{name: "failed on rate limits ten minutes ago or longer: retried (Gardener's docs/concepts/controller-manager.md)", live: failedShoot("Failed", "2026-11-21T11:50:00Z", codeRateLimits), wantRetry: true},
		{name: "failed on rate limits a moment ago: the retry waits, and the daemon comes back then", live: failedShoot("Failed", "2026-11-21T11:55:00Z", codeRateLimits), wantNext: time.Date(2026, 11, 21, 12, 5, 0, 0, time.UTC)},
		{name: "the retry asked for and not taken up yet stays", live: retried, wantRetry: true},
		{name: "failed for another reason: a person must act (Gardener's docs/usage/shoot/shoot_status.md)", live: failedShoot("Failed", "2026-11-21T11:00:00Z", "ERR_INFRA_UNAUTHORIZED")},
		{name: "an operation in Error is retried by gardenlet itself", live: failedShoot("Error", "2026-11-21T11:00:00Z", codeRateLimits)},
		{name: "a shoot in deletion is left alone", live: deleting},
		{name: "no shoot yet", live: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideRetry(tc.live, now)
			assert.Equal(t, tc.wantRetry, d.retry)
			assert.Equal(t, tc.wantNext, d.next)
		})
	}
}

func TestRetryIsAnAnnotationOnTheShoot(t *testing.T) {
	b, err := newBuilder("dev", values(nil))
	if !assert.NoError(t, err) {
		return
	}
	b.retry = decideRetry(failedShoot("Failed", "2026-11-21T11:00:00Z", codeRateLimits), time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	assert.NoError(t, b.build())
	var shoot *unstructured.Unstructured
	for _, p := range b.parts {
		if p.Name == "shoot" {
			shoot = p.Objects[0].Object
			assert.Contains(t, p.Note, "rate limits")
		}
	}
	if assert.NotNil(t, shoot) {
		assert.Equal(t, OperationRetry, shoot.GetAnnotations()[AnnotationOperation])
	}
}
