package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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
	assert.Contains(t, errOut, "kubeconfig "+dir+"/no-kubeconfig (--kubeconfig): the file does not exist")
}

// writeKubeconfig writes a kubeconfig with a context per server, the first one current.
func writeKubeconfig(t *testing.T, path string, servers map[string]string, current string) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for name, server := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "t"}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	cfg.CurrentContext = current
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
}

func TestSelfFlagsFollowTheKubeconfigConventions(t *testing.T) {
	home := t.TempDir()
	writeKubeconfig(t, filepath.Join(home, ".kube", "config"), map[string]string{"home": "https://home.example:6443"}, "home")
	env := filepath.Join(t.TempDir(), "env-kubeconfig")
	writeKubeconfig(t, env, map[string]string{"a": "https://a.example:6443", "b": "https://b.example:6443"}, "a")
	explicit := filepath.Join(t.TempDir(), "explicit")
	writeKubeconfig(t, explicit, map[string]string{"x": "https://x.example:6443"}, "x")
	// client-go reads HOME once, when the process starts: set what it would have found.
	oldHome := clientcmd.RecommendedHomeFile
	clientcmd.RecommendedHomeFile = filepath.Join(home, ".kube", "config")
	t.Cleanup(func() { clientcmd.RecommendedHomeFile = oldHome })
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in a pod

	tests := []struct {
		name       string
		kubeconfig string
		flags      selfFlags
		want       string
	}{
		{"~/.kube/config", "", selfFlags{}, "https://home.example:6443"},
		{"KUBECONFIG", env, selfFlags{}, "https://a.example:6443"},
		{"KUBECONFIG and --context", env, selfFlags{context: "b"}, "https://b.example:6443"},
		{"--kubeconfig over KUBECONFIG", env, selfFlags{kubeconfig: explicit}, "https://x.example:6443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			cfg, err := tt.flags.restConfig()
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Host)
		})
	}
}
