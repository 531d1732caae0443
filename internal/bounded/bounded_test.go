package bounded

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A step that waits longer than its time budget without using the CPU is not an overrun: a
// machine busy with other work stretches a step's wall time, not its CPU time. (An overrun
// exits the test binary, so this test fails by ending it.)
func TestWaitingIsNoOverrun(t *testing.T) {
	got := Run(t, Budget{Time: 50 * time.Millisecond, Heap: Default.Heap}, func() string {
		time.Sleep(300 * time.Millisecond)
		return "done"
	})
	assert.Equal(t, "done", got)
}

// The CPU time of the process grows with work done.
func TestCPUTimeGrowsWithWork(t *testing.T) {
	before := cpuTime()
	require.GreaterOrEqual(t, before, time.Duration(0))
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	assert.Positive(t, x)
	assert.Greater(t, cpuTime(), before)
}
