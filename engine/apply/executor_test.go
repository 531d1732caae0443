package apply

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/plan"
)

func comps(addrs ...string) []*plan.Component {
	var out []*plan.Component
	for _, a := range addrs {
		out = append(out, &plan.Component{Address: a})
	}
	return out
}

func statuses(r *Result) map[string]string {
	out := map[string]string{}
	for _, c := range r.Components {
		out[c.Address] = string(c.Status)
		if c.Status == Blocked {
			out[c.Address] += " by " + c.BlockedBy
		}
	}
	return out
}

func TestScheduleBlocksOnlyDependents(t *testing.T) {
	// a <- b <- c ; a <- d ; e independent; f removed from the landscape.
	deps := map[string][]string{"a": nil, "b": {"a"}, "c": {"b"}, "d": {"a"}, "e": nil}
	var mu sync.Mutex
	var ran []string
	res := Schedule(context.Background(), comps("a", "b", "c", "d", "e", "f"), deps, 10, false, func(_ context.Context, c *plan.Component) error {
		mu.Lock()
		ran = append(ran, c.Address)
		mu.Unlock()
		if c.Address == "b" {
			return errors.New("boom")
		}
		return nil
	}, nil)
	assert.Equal(t, map[string]string{
		"a": "applied", "b": "failed", "c": "blocked by b", "d": "applied", "e": "applied", "f": "applied",
	}, statuses(res))
	assert.NotContains(t, ran, "c")
	assert.Equal(t, "f", ran[len(ran)-1], "removed components run last")
	require.Error(t, res.Err())
	assert.Contains(t, res.Err().Error(), "c blocked by b: boom")
}

func TestScheduleStartsEachComponentWhenItsOwnDependenciesAreDone(t *testing.T) {
	// slow <- afterSlow ; fast <- afterFast: afterFast must not wait for slow (no level barrier).
	deps := map[string][]string{"slow": nil, "fast": nil, "afterSlow": {"slow"}, "afterFast": {"fast"}}
	var afterFastDone, slowDone atomic.Int64
	start := time.Now()
	Schedule(context.Background(), comps("slow", "fast", "afterSlow", "afterFast"), deps, 10, false, func(_ context.Context, c *plan.Component) error {
		switch c.Address {
		case "slow":
			time.Sleep(300 * time.Millisecond)
			slowDone.Store(int64(time.Since(start)))
		case "afterFast":
			afterFastDone.Store(int64(time.Since(start)))
		}
		return nil
	}, nil)
	assert.Less(t, afterFastDone.Load(), slowDone.Load())
}

func TestScheduleBoundsParallelism(t *testing.T) {
	deps := map[string][]string{}
	var names []string
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		deps[n] = nil
		names = append(names, n)
	}
	var running, peak atomic.Int64
	Schedule(context.Background(), comps(names...), deps, 3, false, func(context.Context, *plan.Component) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return nil
	}, nil)
	assert.Equal(t, int64(3), peak.Load())
}

func TestScheduleSkipsAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	deps := map[string][]string{"a": nil, "b": {"a"}}
	res := Schedule(ctx, comps("a", "b"), deps, 10, false, func(_ context.Context, c *plan.Component) error {
		cancel()
		return nil
	}, nil)
	assert.Equal(t, map[string]string{"a": "applied", "b": "skipped"}, statuses(res))
}
