package localcluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ProcessAlive reports whether pid is a running process. A zombie (exited but not yet reaped by
// its parent) counts as gone: it holds no ports, files or memory any more.
func ProcessAlive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	return stat[i+2] != 'Z'
}

// ProcessesUsing lists live processes whose command line mentions dir. Every binary the helper
// starts carries its plane directory in its flags, so after Stop this must be empty: it is how
// tests prove that nothing was left behind, whoever started it.
func ProcessesUsing(dir string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("process list: %w", err)
	}
	needle := []byte(dir)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, needle) {
			continue
		}
		if ProcessAlive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
