package localcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is one control plane binary started by the helper. It runs in its own process group, so
// a terminal's Ctrl-C reaches only the helper, which then stops it in order; and it carries a
// parent-death signal, so it dies with the helper even if the helper is killed without a chance to
// clean up.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan struct{}
	waitErr error
}

// startProcess starts binary with args, its output going to logPath.
func startProcess(name, binary string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s log: %w", name, err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = processEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("%s start: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, logFile: logFile, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// processEnv is the environment of the control plane binaries: the caller's, without proxy settings
// (everything they talk to is on loopback) and without a KUBECONFIG that could confuse them.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(key) {
		case "HTTP_PROXY", "HTTPS_PROXY", "KUBECONFIG":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NO_PROXY=127.0.0.1,localhost")
}

// pid is the process id; it is also the id of the process group the process leads.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process group: SIGTERM first, SIGKILL after grace, and waits until the process is
// reaped. Stopping an exited process is a no-op.
func (p *process) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	if err := syscall.Kill(-p.pid(), syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s terminate: %w", p.name, err)
	}
	select {
	case <-p.done:
	case <-time.After(grace):
		if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("%s kill: %w", p.name, err)
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.pid())
		}
	}
	// A binary may have started children of its own in its group; make sure none outlives it.
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
	return nil
}

// failure describes an unexpected exit with the end of the process's log, which is where
// kube-apiserver and etcd say why they gave up.
func (p *process) failure() error {
	return fmt.Errorf("%s exited (%v); last log lines:\n%s", p.name, p.waitErr, tailFile(p.logPath, 15))
}

// tailFile returns the last n lines of a file, or a note why it cannot.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
