package render

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestObservation(t *testing.T) {
	now := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	earlier := now.Add(-5 * time.Hour)
	for _, tc := range []struct {
		name       string
		observedAt time.Time
		want       time.Time
	}{
		{"plan, apply, daemon: observed at the evaluation time", time.Time{}, now},
		{"plan --at a later time", earlier, earlier},
		{"observed after the evaluation time: nothing to predict", now.Add(time.Hour), now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Input{Now: now, ObservedAt: tc.observedAt}.Observation())
		})
	}
}
