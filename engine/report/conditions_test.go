package report

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/render"
)

var (
	t0 = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func TestBuildCondition(t *testing.T) {
	old := map[string]any{
		"type": "ControlPlaneHealthy", "status": "True", "reason": "ControlPlaneRunning", "message": "All control plane components are healthy.",
		"lastTransitionTime": "2026-11-27T08:00:00Z", "lastUpdateTime": "2026-11-27T08:00:00Z",
	}
	tests := []struct {
		name    string
		old     map[string]any
		in      Condition
		want    map[string]any
		changed bool
	}{
		{
			name: "new: both times now",
			in:   Condition{Type: "GardenletReady", Status: True, Reason: "GardenletReady", Message: "Gardenlet is posting ready status."},
			want: map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "Gardenlet is posting ready status.",
				"lastTransitionTime": "2026-11-27T08:01:00Z", "lastUpdateTime": "2026-11-27T08:01:00Z"},
			changed: true,
		},
		{
			name: "the same: no change, times kept",
			old:  old,
			in:   Condition{Type: "ControlPlaneHealthy", Status: True, Reason: "ControlPlaneRunning", Message: "All control plane components are healthy."},
			want: old,
		},
		{
			name: "another message: only lastUpdateTime moves",
			old:  old,
			in:   Condition{Type: "ControlPlaneHealthy", Status: True, Reason: "ControlPlaneRunning", Message: "other"},
			want: map[string]any{"type": "ControlPlaneHealthy", "status": "True", "reason": "ControlPlaneRunning", "message": "other",
				"lastTransitionTime": "2026-11-27T08:00:00Z", "lastUpdateTime": "2026-11-27T08:01:00Z"},
			changed: true,
		},
		{
			name: "another status: both move",
			old:  old,
			in:   Condition{Type: "ControlPlaneHealthy", Status: False, Reason: "DeploymentUnhealthy", Message: "kube-apiserver is unhealthy"},
			want: map[string]any{"type": "ControlPlaneHealthy", "status": "False", "reason": "DeploymentUnhealthy", "message": "kube-apiserver is unhealthy",
				"lastTransitionTime": "2026-11-27T08:01:00Z", "lastUpdateTime": "2026-11-27T08:01:00Z"},
			changed: true,
		},
		{
			name: "empty reason and message as Gardener's builder fills them",
			in:   Condition{Type: "X", Status: Unknown},
			want: map[string]any{"type": "X", "status": "Unknown", "reason": "Unspecified", "message": "No message given.",
				"lastTransitionTime": "2026-11-27T08:01:00Z", "lastUpdateTime": "2026-11-27T08:01:00Z"},
			changed: true,
		},
		{
			name: "codes are not carried over",
			old: map[string]any{"type": "X", "status": "False", "reason": "r", "message": "m", "codes": []any{"ERR_CONFIGURATION_PROBLEM"},
				"lastTransitionTime": "2026-11-27T08:00:00Z", "lastUpdateTime": "2026-11-27T08:00:00Z"},
			in: Condition{Type: "X", Status: False, Reason: "r", Message: "m"},
			want: map[string]any{"type": "X", "status": "False", "reason": "r", "message": "m",
				"lastTransitionTime": "2026-11-27T08:00:00Z", "lastUpdateTime": "2026-11-27T08:00:00Z"},
			changed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := buildCondition(tt.old, tt.in, t1)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changed, changed)
		})
	}
}

func TestMergeConditionsKeepsOthers(t *testing.T) {
	gcm := map[string]any{"type": "ExtensionsReady", "status": "True", "reason": "AllExtensionsReady", "message": "m", "lastTransitionTime": "x", "lastUpdateTime": "x"}
	live := []any{gcm}
	out, changed := mergeConditions(live, []Condition{{Type: "GardenletReady", Status: True, Reason: "GardenletReady", Message: "Gardenlet is posting ready status."}}, t0)
	assert.True(t, changed)
	assert.Len(t, out, 2)
	assert.Equal(t, gcm, out[0], "gardener-controller-manager's condition stays as it is")
	assert.Equal(t, "GardenletReady", out[1].(map[string]any)["type"])

	again, changed := mergeConditions(out, []Condition{{Type: "GardenletReady", Status: True, Reason: "GardenletReady", Message: "Gardenlet is posting ready status."}}, t1)
	assert.False(t, changed, "nothing to write")
	assert.Equal(t, out, again)
}

func TestJudge(t *testing.T) {
	c := render.ReportedCondition{Type: "ControlPlaneHealthy", Parts: []string{"etcd_main", "kube_apiserver"}, Reason: "ControlPlaneRunning",
		Message: "All control plane components are healthy.", FalseReason: "DeploymentUnhealthy"}
	allReady := func(string) (bool, string) { return true, "" }
	assert.Equal(t, Condition{Type: "ControlPlaneHealthy", Status: True, Reason: "ControlPlaneRunning", Message: "All control plane components are healthy."}, Judge(c, allReady))

	apiserverDown := func(p string) (bool, string) {
		if p == "kube_apiserver" {
			return false, "Deployment kube-apiserver: 0 of 1 replicas available"
		}
		return true, ""
	}
	assert.Equal(t, Condition{Type: "ControlPlaneHealthy", Status: False, Reason: "DeploymentUnhealthy", Message: "kube_apiserver: Deployment kube-apiserver: 0 of 1 replicas available"}, Judge(c, apiserverDown))

	fixed := render.ReportedCondition{Type: "EveryNodeReady", Status: Unknown, Reason: "NodesNotVisible", Message: "the engine cannot see the shoot's nodes"}
	assert.Equal(t, Condition{Type: "EveryNodeReady", Status: Unknown, Reason: "NodesNotVisible", Message: "the engine cannot see the shoot's nodes"}, Judge(fixed, apiserverDown))
}

func TestFailedState(t *testing.T) {
	assert.Equal(t, StateError, failedState(Failure{Err: errors.New("x")}))
	assert.Equal(t, StateError, failedState(Failure{Err: errors.New("x"), Codes: []string{"ERR_RETRYABLE_INFRA_DEPENDENCIES"}}))
	assert.Equal(t, StateFailed, failedState(Failure{Err: errors.New("x"), Codes: []string{"ERR_CONFIGURATION_PROBLEM"}}))
	assert.Equal(t, StateFailed, failedState(Failure{Err: errors.New("x"), Codes: []string{"ERR_INFRA_RATE_LIMITS_EXCEEDED"}}), "gardenlet fails for good on rate limits; gardener-controller-manager retries those")
}
