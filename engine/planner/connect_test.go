package planner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A plan that reads no live cluster is made at --at, else when its snapshot was recorded, else at
// the fixed OfflineTime; a snapshot's clusters are as they were when recorded, empty ones as at
// the plan's time: never the clock.
func TestRecordedTimes(t *testing.T) {
	at := time.Date(2026, 11, 22, 22, 30, 0, 0, time.UTC)
	recorded := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name                 string
		at, recorded         time.Time
		wantNow, wantObserve time.Time
	}{
		{"offline", time.Time{}, time.Time{}, OfflineTime, OfflineTime},
		{"offline at a time", at, time.Time{}, at, at},
		{"a snapshot with its time", time.Time{}, recorded, recorded, recorded},
		{"a snapshot planned for a later time", at, recorded, at, recorded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now, observed := RecordedTimes(tt.at, tt.recorded)
			assert.Equal(t, tt.wantNow, now)
			assert.Equal(t, tt.wantObserve, observed)
		})
	}
}
