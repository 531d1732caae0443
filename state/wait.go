package state

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// acquire calls try until it returns a lock or an error other than *LockedError, polling every
// poll until wait has passed. Both backends take their locks this way.
func acquire(ctx context.Context, wait, poll time.Duration, try func(context.Context) (Lock, error)) (Lock, error) {
	start := time.Now()
	for {
		l, err := try(ctx)
		var locked *LockedError
		if err == nil || !errors.As(err, &locked) {
			return l, err
		}
		waited := time.Since(start)
		if wait > 0 {
			locked.Waited = waited
		}
		if waited >= wait {
			return nil, locked
		}
		timer := time.NewTimer(min(poll, wait-waited))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("waiting for the state lock: %w: %w", ctx.Err(), locked)
		case <-timer.C:
		}
	}
}

// neverLost is the Lost channel of locks that cannot be lost by expiry.
var neverLost = make(chan struct{})
