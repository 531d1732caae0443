package localcluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// BinDirEnv names the environment variable that points the helper at a directory holding the
// control plane binaries; without it the helper looks for bin/ at the repository root.
const BinDirEnv = "LOCALCLUSTER_BIN_DIR"

// binary names the helper runs, as built by `make tools` into bin/.
const (
	binEtcd                  = "etcd"
	binKubeAPIServer         = "kube-apiserver"
	binKubeControllerManager = "kube-controller-manager"
	binKubeScheduler         = "kube-scheduler"
	binKwok                  = "kwok"
	binGardenerAPIServer     = "gardener-apiserver"
	// binGardenerAdmissionController serves Gardener's admission webhooks on GardenerAPI planes.
	binGardenerAdmissionController = "gardener-admission-controller"
	// binGardenerControllerManager and binGardenerScheduler run on GardenerAPI planes with
	// GardenerControllers.
	binGardenerControllerManager = "gardener-controller-manager"
	binGardenerScheduler         = "gardener-scheduler"
	// kwokStagesFile holds kwok's own node and pod stages, copied from the pinned kwok module by
	// `make tools` so that they always match the kwok binary.
	kwokStagesFile = "kwok-stages.yaml"
)

var requiredBinaries = []string{binEtcd, binKubeAPIServer, binKubeControllerManager, binKubeScheduler, binKwok, kwokStagesFile, binGardenerAPIServer, binGardenerAdmissionController, binGardenerControllerManager, binGardenerScheduler}

// FindBinDir returns the directory with the control plane binaries: $LOCALCLUSTER_BIN_DIR, or the
// bin/ folder of the repository that contains the working directory. It fails with the command that
// builds them when any is missing.
func FindBinDir() (string, error) {
	dir := os.Getenv(BinDirEnv)
	if dir == "" {
		root, err := repositoryRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin")
	}
	var missing []string
	for _, name := range requiredBinaries {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("local control plane binaries missing in %s: %v; run `make tools` at the repository root", dir, missing)
	}
	return dir, nil
}

// repositoryRoot walks up from the working directory to the folder holding the tools modules.
func repositoryRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tests", "tools", "kubernetes", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root not found above the working directory; set " + BinDirEnv)
		}
		dir = parent
	}
}

// freePorts reserves n distinct loopback ports. All listeners stay open until every port is
// chosen, so one call never returns the same port twice.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
