package state

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An attempt that fails after the lock was found held ends the wait as the context's end when the
// context ends before the next attempt (as client-go's rate limiter refuses to wait past a
// deadline), and is the backend's error otherwise.
func TestAcquireAttemptFailingAfterHeldLock(t *testing.T) {
	backendErr := errors.New("rate: Wait(n=1) would exceed context deadline")
	held := &LockedError{Holder: "alice"}
	tests := []struct {
		name      string
		timeout   time.Duration
		wantEnded bool
	}{
		{name: "the context ends before the next attempt", timeout: 150 * time.Millisecond, wantEnded: true},
		{name: "the context has time left", timeout: time.Hour, wantEnded: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			attempts := 0
			_, err := acquire(ctx, time.Hour, 100*time.Millisecond, func(context.Context) (Lock, error) {
				attempts++
				if attempts == 1 {
					return nil, held
				}
				return nil, backendErr
			})
			require.Error(t, err)
			var locked *LockedError
			if tt.wantEnded {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				require.ErrorAs(t, err, &locked)
				assert.Equal(t, "alice", locked.Holder)
				assert.Contains(t, err.Error(), backendErr.Error())
				return
			}
			assert.Same(t, backendErr, err)
		})
	}
}
