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
	var last *LockedError
	for {
		l, err := try(ctx)
		var locked *LockedError
		if err != nil && !errors.As(err, &locked) && last != nil && endsWithin(ctx, poll) {
			// An attempt after the lock was found held failed because the context ends before
			// the next one could start (client-go's rate limiter refuses a wait past the
			// deadline with an error of its own): the wait for the lock ends with the context.
			<-ctx.Done()
			return nil, fmt.Errorf("waiting for the state lock: %w: %w (last attempt: %v)", ctx.Err(), last, err)
		}
		if err == nil || !errors.As(err, &locked) {
			return l, err
		}
		last = locked
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

// endsWithin reports whether ctx is done or its deadline comes within d.
func endsWithin(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return true
	}
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) <= d
}

// neverLost is the Lost channel of locks that cannot be lost by expiry.
var neverLost = make(chan struct{})
