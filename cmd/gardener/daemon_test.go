package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDaemonFlagErrors(t *testing.T) {
	dir := t.TempDir()
	_, errOut, err := run(t, "daemon", "--landscape", dir, "--policy", "yolo")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, `policy "yolo" is none of auto, approve-destructive, plan-only`)

	_, errOut, err = run(t, "daemon", "--landscape", dir+"/missing")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "is not a directory")

	_, errOut, err = run(t, "daemon", "--landscape", dir, "--kubeconfig", dir+"/no-kubeconfig")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "no-kubeconfig")

	_, errOut, err = run(t, "approve", "abc", "--kubeconfig", dir+"/no-kubeconfig")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "no-kubeconfig")
}
