package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// logDir holds the output of every gardener run.
var logDir string

// profileRuns makes every gardener run write a CPU profile beside its log (--cpuprofile).
var profileRuns bool

// gardenerRun is one run of the gardener binary.
type gardenerRun struct {
	// args are the command line after the binary.
	args []string
	// kubeconfig is the KUBECONFIG of the run; empty leaves the environment's (offline runs).
	kubeconfig string
	// log names the file under logDir that gets the run's output.
	log string
	// memoryBudgetMiB stops the run once its resident memory passes it; zero means no bound.
	memoryBudgetMiB float64
	// timeout stops the run once it has run this long; zero means no bound.
	timeout time.Duration
}

// runOutcome is what a run measured.
type runOutcome struct {
	Seconds    float64
	PeakRSSMiB float64
	// Stopped says why the run was stopped before it ended (memory, time); empty when it ended.
	Stopped string
}

// errStopped is returned with a run stopped at its memory budget or timeout.
var errStopped = errors.New("stopped")

// runGardener runs the gardener binary once and measures its wall time and peak resident memory
// (the kernel's maximum resident set size of the process, from wait4's rusage). With a memory
// budget it reads the process's resident memory from /proc ten times a second and stops it
// (SIGKILL) as soon as it passes the budget, so that a size too large for the machine ends the
// run instead of the machine's other processes. --detailed-exitcode's 2 (changes) is a failure:
// only no-op plans use it.
func runGardener(bin string, r gardenerRun) (runOutcome, error) {
	cmd := exec.Command(bin, r.args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if r.kubeconfig != "" {
		cmd.Env = append(cmd.Env, "KUBECONFIG="+r.kubeconfig)
	}
	if profileRuns {
		cmd.Env = append(cmd.Env, "GARDENER_CPUPROFILE="+filepath.Join(logDir, r.log+".prof"))
	}
	// The output goes to a log file beside the results, to follow a long run and to debug one.
	logPath := filepath.Join(logDir, r.log+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return runOutcome{}, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return runOutcome{}, fmt.Errorf("gardener %s: %w", strings.Join(r.args, " "), err)
	}
	done := make(chan struct{})
	stopped := make(chan string, 1)
	go watchRun(cmd.Process, r, start, done, stopped)
	err = cmd.Wait()
	close(done)
	out := runOutcome{Seconds: time.Since(start).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		out.PeakRSSMiB = float64(ru.Maxrss) / 1024 // Linux reports KiB
	}
	select {
	case out.Stopped = <-stopped:
		fmt.Fprintf(os.Stderr, "bench: gardener %s: %s\n", r.log, out.Stopped)
		return out, fmt.Errorf("gardener %s: %w: %s", strings.Join(r.args, " "), errStopped, out.Stopped)
	default:
	}
	if err != nil {
		output, _ := os.ReadFile(logPath)
		return out, fmt.Errorf("gardener %s: %w\n%s", strings.Join(r.args, " "), err, tail(string(output), 3000))
	}
	fmt.Fprintf(os.Stderr, "bench: gardener %s: %.2fs, peak RSS %.0f MiB\n", r.log, out.Seconds, out.PeakRSSMiB)
	return out, nil
}

// watchRun stops a run that passes its memory budget or its timeout, saying why on stopped.
func watchRun(p *os.Process, r gardenerRun, start time.Time, done <-chan struct{}, stopped chan<- string) {
	if r.memoryBudgetMiB <= 0 && r.timeout <= 0 {
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		reason := ""
		if r.timeout > 0 && time.Since(start) > r.timeout {
			reason = fmt.Sprintf("stopped after %s (the timeout)", r.timeout)
		} else if rss, err := residentMiB(p.Pid); err == nil && r.memoryBudgetMiB > 0 && rss > r.memoryBudgetMiB {
			reason = fmt.Sprintf("stopped at %.0f MiB resident, past the budget of %.0f MiB", rss, r.memoryBudgetMiB)
		}
		if reason != "" {
			stopped <- reason
			_ = p.Kill()
			return
		}
	}
}

// residentMiB reads a process's resident memory (VmRSS) from /proc.
func residentMiB(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return meminfoField(data, "VmRSS")
}

// availableMiB is the memory the kernel estimates is available to start new work (MemAvailable).
func availableMiB() (float64, error) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	return meminfoField(data, "MemAvailable")
}

// meminfoField reads a field in kB (as /proc/meminfo and /proc/PID/status write them) and
// returns it in MiB.
func meminfoField(data []byte, field string) (float64, error) {
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected value %q", field, value)
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", field, err)
		}
		return kb / 1024, nil
	}
	return 0, fmt.Errorf("no %s field", field)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
