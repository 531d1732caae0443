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
