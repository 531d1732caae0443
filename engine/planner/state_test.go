package planner

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestStateBackendLocal(t *testing.T) {
	dir := t.TempDir()
	noCluster := func(string) (*cluster.Client, error) {
		t.Fatal("a local backend connects to no cluster")
		return nil, nil
	}
	tests := []struct {
		name string
		cfg  *config.StateConfig
		path string
	}{
		{"no state block", nil, filepath.Join(dir, state.DefaultLocalPath)},
		{"relative path", &config.StateConfig{Backend: "local", Path: "states/x.json"}, filepath.Join(dir, "states/x.json")},
		{"absolute path", &config.StateConfig{Backend: "local", Path: "/var/lib/x.json"}, "/var/lib/x.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := StateBackend(tt.cfg, dir, "land", noCluster)
			require.NoError(t, err)
			assert.Equal(t, state.NewLocalWithOptions(tt.path, state.LocalOptions{Landscape: "land"}), b, "the backend checks the state is the landscape's")
		})
	}
}

func TestStateBackendErrors(t *testing.T) {
	fail := func(string) (*cluster.Client, error) { return nil, assert.AnError }
	tests := []struct {
		name      string
		cfg       *config.StateConfig
		landscape string
		want      string
	}{
		{"unknown backend", &config.StateConfig{Backend: "s3"}, "x", `backend "s3" is not supported`},
		{"no cluster", &config.StateConfig{Backend: "kubernetes"}, "x", "needs a cluster"},
		{"connect fails", &config.StateConfig{Backend: "kubernetes", Cluster: "runtime"}, "x", "cluster runtime: " + assert.AnError.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StateBackend(tt.cfg, t.TempDir(), tt.landscape, fail)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStateHead(t *testing.T) {
	ns, name, ok := StateHead(&config.StateConfig{Backend: config.BackendKubernetes, Namespace: "states"}, "land")
	assert.True(t, ok)
	assert.Equal(t, [2]string{"states", "gardener-state-land"}, [2]string{ns, name})
	ns, _, _ = StateHead(&config.StateConfig{Backend: config.BackendKubernetes}, "land")
	assert.Equal(t, DefaultStateNamespace, ns, "the backend's default namespace")
	_, _, ok = StateHead(&config.StateConfig{Backend: config.BackendLocal}, "land")
	assert.False(t, ok, "a state file has no head Secret")
	_, _, ok = StateHead(nil, "land")
	assert.False(t, ok, "no state block: a state file")
}

func TestStateBackendKubernetes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	ctx := context.Background()
	cfg := localcluster.Shared(t).Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ns := "planner-state-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	connect := func(name string) (*cluster.Client, error) {
		assert.Equal(t, "runtime", name)
		return cluster.ConnectConfig(cfg, cluster.Options{NoDiskCache: true})
	}
	tests := []struct {
		name      string
		landscape string
		err       string
	}{
		{"valid", "land", ""},
		{"invalid landscape name", "no spaces allowed", "cannot label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := StateBackend(&config.StateConfig{Backend: "kubernetes", Cluster: "runtime", Namespace: ns}, t.TempDir(), tt.landscape, connect)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, b.Write(ctx, state.Empty(tt.landscape)))
			_, err = cs.CoreV1().Secrets(ns).Get(ctx, state.HeadName(tt.landscape), metav1.GetOptions{})
			require.NoError(t, err)
		})
	}
}
