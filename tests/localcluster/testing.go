package localcluster

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Start starts a cluster for one test and stops it in the test's cleanup. Without planes it starts
// the default topology. It fails the test when the binaries are missing: a test that needs a
// control plane must not pass without one.
func Start(t testing.TB, planes ...PlaneOptions) *Cluster {
	t.Helper()
	c, err := Launch(context.Background(), Options{Planes: planes, Log: testLog{t}})
	if err != nil {
		t.Fatalf("local cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("local cluster stop: %v", err)
		}
	})
	return c
}

type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(string(b))
	return len(b), nil
}

// The shared cluster of a test binary: started by the first test that asks for it and stopped by
// RunShared after the last test, so all tests of a package share one control plane.
var (
	sharedMu      sync.Mutex
	sharedCluster *Cluster
	sharedErr     error
)

// Shared returns the package's shared cluster (default topology), starting it on first use. The
// package's TestMain must call RunShared so that it is stopped.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedCluster == nil && sharedErr == nil {
		sharedCluster, sharedErr = Launch(context.Background(), Options{Log: os.Stderr})
	}
	if sharedErr != nil {
		t.Fatalf("shared local cluster: %v", sharedErr)
	}
	return sharedCluster
}

// RunShared runs the tests and then stops the shared cluster, if one was started. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }
func RunShared(m *testing.M) int {
	code := m.Run()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedCluster != nil {
		if err := sharedCluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "shared local cluster stop: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
		sharedCluster = nil
	}
	return code
}
