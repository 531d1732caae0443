package render

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEarliest(t *testing.T) {
	a := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)
	b := a.Add(time.Hour)
	assert.True(t, Earliest().IsZero(), "nothing set: never")
	assert.True(t, Earliest(time.Time{}, time.Time{}).IsZero())
	assert.Equal(t, a, Earliest(time.Time{}, b, a), "unset times do not count")
	assert.Equal(t, a, Earliest(a, b))
}

func TestDailyWindowNextBeginAndEnd(t *testing.T) {
	w, err := MaintenanceWindow{Begin: "230000+0100", End: "010000+0100"}.Parse() // 22:00-00:00 UTC
	require.NoError(t, err)
	at := time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)
	assert.True(t, w.Contains(at))
	assert.Equal(t, time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), w.NextBegin(at), "inside, the next begin is tomorrow's")
	assert.Equal(t, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), w.NextEnd(at))
	assert.Equal(t, "22:00-00:00 UTC", w.Text)
}

func TestWindowContains(t *testing.T) {
	at := func(hhmm string) time.Time {
		ts, err := time.Parse("2006-01-02 15:04 -0700", "2026-11-22 "+hhmm)
		require.NoError(t, err)
		return ts
	}
	tests := []struct {
		name, begin, end, now string
		want                  bool
	}{
		{"inside", "220000+0000", "230000+0000", "22:30 +0000", true},
		{"begin is inside", "220000+0000", "230000+0000", "22:00 +0000", true},
		{"end is outside", "220000+0000", "230000+0000", "23:00 +0000", false},
		{"before", "220000+0000", "230000+0000", "12:00 +0000", false},
		{"offset of the window", "220000+0100", "230000+0100", "21:30 +0000", true},
		{"offset of the clock", "220000+0000", "230000+0000", "23:30 +0100", true},
		{"across midnight, late", "230000+0000", "010000+0000", "23:30 +0000", true},
		{"across midnight, early", "230000+0000", "010000+0000", "00:30 +0000", true},
		{"across midnight, outside", "230000+0000", "010000+0000", "12:00 +0000", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := MaintenanceWindow{Begin: tt.begin, End: tt.end}.Parse()
			require.NoError(t, err)
			assert.Equal(t, tt.want, w.Contains(at(tt.now)))
		})
	}
	_, err := MaintenanceWindow{Begin: "22:00", End: "230000+0000"}.Parse()
	assert.ErrorContains(t, err, `maintenance window begin "22:00" is not HHMMSS+HHMM`)
}
