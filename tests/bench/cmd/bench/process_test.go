package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary play a gardener run for runGardener's tests (TestMain).
const helperEnv = "BENCH_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "plan":
		fmt.Println("Plan: 3 to add, 0 to change, 0 to replace, 0 to destroy.")
		fmt.Println("profile:", os.Getenv("GARDENER_CPUPROFILE"))
		os.Exit(0)
	case "fail":
		fmt.Println("Error: the landscape does not load")
		os.Exit(1)
	case "grow":
		// Touch 64 MiB more every 50ms, as a plan too large for the machine would.
		var held [][]byte
		for range 200 {
			chunk := make([]byte, 64<<20)
			for i := 0; i < len(chunk); i += 4096 {
				chunk[i] = 1
			}
			held = append(held, chunk)
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Println(len(held))
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(2)
}

// playGardener runs the test binary as the gardener binary, playing role.
func playGardener(t *testing.T, role string, r gardenerRun) (runOutcome, error) {
	t.Helper()
	logDir = t.TempDir()
	t.Setenv(helperEnv, role)
	self, err := os.Executable()
	require.NoError(t, err)
	return runGardener(self, r)
}

func TestRunGardenerMeasuresTimeAndPeakMemoryAndKeepsTheOutput(t *testing.T) {
	out, err := playGardener(t, "plan", gardenerRun{args: []string{"plan"}, log: "plan"})
	require.NoError(t, err)
	assert.Positive(t, out.Seconds)
	assert.Positive(t, out.PeakRSSMiB, "the kernel's maximum resident set size of the run")
	assert.Empty(t, out.Stopped)
	logged, err := os.ReadFile(filepath.Join(logDir, "plan.log"))
	require.NoError(t, err)
	assert.Contains(t, string(logged), "Plan: 3 to add")
	assert.Contains(t, string(logged), "profile: \n", "no profile unless asked for")

	profileRuns = true
	t.Cleanup(func() { profileRuns = false })
	_, err = playGardener(t, "plan", gardenerRun{args: []string{"plan"}, log: "profiled"})
	require.NoError(t, err)
	logged, err = os.ReadFile(filepath.Join(logDir, "profiled.log"))
	require.NoError(t, err)
	assert.Contains(t, string(logged), "profile: "+filepath.Join(logDir, "profiled.prof")+"\n", "with --cpuprofile, beside the run's log")
}

func TestRunGardenerFailsWithTheRunsOutput(t *testing.T) {
	_, err := playGardener(t, "fail", gardenerRun{args: []string{"plan", "x"}, log: "fail"})
	require.Error(t, err)
	assert.NotErrorIs(t, err, errStopped)
	assert.ErrorContains(t, err, "the landscape does not load")
}

func TestRunGardenerStopsARunPastItsMemoryBudget(t *testing.T) {
	out, err := playGardener(t, "grow", gardenerRun{args: []string{"plan"}, log: "grow", memoryBudgetMiB: 256})
	require.ErrorIs(t, err, errStopped)
	assert.Contains(t, out.Stopped, "past the budget of 256 MiB")
	assert.Less(t, out.PeakRSSMiB, 1024.0, "stopped long before it took the 12 GiB it would have")
}

func TestRunGardenerStopsARunPastItsTimeout(t *testing.T) {
	start := time.Now()
	out, err := playGardener(t, "sleep", gardenerRun{args: []string{"plan"}, log: "sleep", timeout: 300 * time.Millisecond})
	require.ErrorIs(t, err, errStopped)
	assert.Contains(t, out.Stopped, "stopped after 300ms")
	assert.Less(t, time.Since(start), 30*time.Second)
}

func TestOfflineSeriesSkipsASizeThatWouldNotFit(t *testing.T) {
	logDir = t.TempDir()
	t.Setenv(helperEnv, "plan")
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := config{gardener: self, scaleLandscape: "landscapes/scale", offlineSizes: []int{10, 100000}, offlineMemoryBudgetMiB: 2048, offlineTarget: `shoot.on_s1["shoot-000"]`, offlineTimeout: time.Minute}

	results, err := offlineSeries(cfg)
	require.NoError(t, err)
	require.Len(t, results, 2)
	assert.True(t, results[0].Full.Measured())
	assert.True(t, results[0].Targeted.Measured())
	assert.Equal(t, 3, results[0].Full.Objects, "read from the plan's summary line")
	for _, p := range []OfflinePlan{results[1].Full, results[1].Targeted} {
		assert.False(t, p.Measured())
		assert.Contains(t, p.Skipped, "not run: its peak memory would be about")
		assert.Contains(t, p.Skipped, "more than the 2048 MiB available")
	}
	_, err = os.Stat(filepath.Join(logDir, "offline-100000-shoots-full.log"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a skipped size does not run at all")
}
