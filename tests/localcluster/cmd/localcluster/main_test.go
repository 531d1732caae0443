package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// TestUpDown exercises the contract of make local-up and make local-down on the real binary.
func TestUpDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	binDir, err := localcluster.FindBinDir()
	require.NoError(t, err)
	self := filepath.Join(t.TempDir(), "localcluster")
	build := exec.Command("go", "build", "-o", self, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	dir := filepath.Join(t.TempDir(), "local")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(self, append(args, "--dir", dir)...)
		cmd.Env = append(os.Environ(), localcluster.BinDirEnv+"="+binDir)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	t.Cleanup(func() {
		if pids, _ := localcluster.ProcessesUsing(dir); len(pids) > 0 {
			_ = exec.Command(self, "down", "--dir", dir).Run()
		}
	})

	out = []byte(run("up", "--seeds", "1"))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	assert.Contains(t, string(out), "export KUBECONFIG="+kubeconfig)
	assert.Contains(t, string(out), "contexts runtime,virtual-garden,seed-1")

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	nodes, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 1, "the current context is the runtime plane")

	again := run("up")
	assert.True(t, strings.HasPrefix(again, "local control plane already running"), again)

	before, err := localcluster.ProcessesUsing(dir)
	require.NoError(t, err)
	assert.NotEmpty(t, before)
	binaries := map[string]bool{}
	for _, pid := range before {
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil {
			binaries[filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])] = true
		}
	}
	assert.True(t, binaries["gardener-controller-manager"], "up starts gardener-controller-manager by default: %v", binaries)
	assert.True(t, binaries["gardener-scheduler"], "up starts gardener-scheduler by default: %v", binaries)

	assert.Contains(t, run("down"), "local control plane stopped")
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, err := localcluster.ProcessesUsing(dir)
		require.NoError(t, err)
		if len(left) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "processes left after down: %v", left)
		time.Sleep(100 * time.Millisecond)
	}
	_, err = os.Stat(filepath.Join(dir, "localcluster.pid"))
	assert.True(t, os.IsNotExist(err), "pid file removed")
	assert.Contains(t, run("down"), "not running", "a second down is harmless")
}

// The Gardener controllers run by default, configured as landscapes/local says rather than with
// the tests' settings; --gardener-controllers=false leaves them out. up hands the choice on to run, and only the
// virtual garden is concerned.
func TestTopologyPassesGardenerControllersOn(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     topology
		wantArgs []string
	}{
		{"default", []string{"--seeds", "1"}, topology{seeds: 1, gardenerControllers: true}, []string{"--seeds", "1", "--gardener-controllers=true"}},
		{"asked for", []string{"--gardener-controllers"}, topology{gardenerControllers: true}, []string{"--seeds", "0", "--gardener-controllers=true"}},
		{"turned off", []string{"--seeds", "1", "--gardener-controllers=false"}, topology{seeds: 1}, []string{"--seeds", "1", "--gardener-controllers=false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, got := parseFlags("up", tt.args, flag.PanicOnError)
			assert.Equal(t, ".local", dir)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantArgs, got.args())
			_, passed := parseFlags("run", got.args(), flag.PanicOnError)
			assert.Equal(t, got, passed, "run starts what up was asked for")
			for _, p := range got.planes() {
				if p.Name == localcluster.VirtualGardenPlane && tt.want.gardenerControllers {
					assert.Equal(t, &localcluster.GardenerControllers{ControllerManagerOverlay: localcluster.LocalLandscapeControllerManagerOverlay}, p.GardenerControllers)
				} else {
					assert.Nil(t, p.GardenerControllers, p.Name)
				}
			}
		})
	}
}
