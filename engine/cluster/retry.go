package cluster

import (
	"context"
	"errors"
	"net"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
)

// readBackoff spaces read attempts: 0.2 s, 0.4 s, 0.8 s, 1.6 s between five attempts, about 3 s
// in all, enough to ride out an API server restart or a burst of priority-and-fairness
// rejections without hiding a server that is really down.
var readBackoff = wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Cap: 5 * time.Second}

// retry runs a read until it succeeds, fails with an error that retrying cannot fix, the
// context ends or the attempts (Options.Retries) are used up. It returns the last error.
func (c *Client) retry(ctx context.Context, read func() error) error {
	return c.retryIf(ctx, retriable, read)
}

// retryIf is retry with its own test of which errors are transient.
func (c *Client) retryIf(ctx context.Context, retriable func(error) bool, read func() error) error {
	backoff := readBackoff
	backoff.Steps = c.opts.Retries
	var err error
	for attempt := 1; ; attempt++ {
		if err = read(); err == nil || !retriable(err) || attempt >= c.opts.Retries || ctx.Err() != nil {
			return err
		}
		delay := backoff.Step()
		if seconds, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(seconds)*time.Second > delay {
			delay = time.Duration(seconds) * time.Second
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
	}
}

// retriableApply is retriable without 500 Internal Error: the API server answers a server-side
// apply whose object does not fit the schema with a 500, which no retry fixes.
func retriableApply(err error) bool {
	return retriable(err) && !apierrors.IsInternalError(err) && !isStatusCode(err, 500)
}

func isStatusCode(err error, code int32) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status) && status.Status().Code == code
}

// retriable tells transient failures (throttling, server errors, timeouts, dropped connections)
// from answers that will not change on a second try.
func retriable(err error) bool {
	// A 404 is an answer. The API server's plain-text 404 for a resource it does not serve
	// reaches client-go as an unexpected server response, which would otherwise count as
	// transient and cost every LIST of such a resource seconds of retries.
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || apierrors.IsNotFound(err) {
		return false
	}
	switch {
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err), apierrors.IsUnexpectedServerError(err):
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code >= 500 {
		return true
	}
	if utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err) || utilnet.IsProbableEOF(err) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
