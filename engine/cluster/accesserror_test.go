package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
)

// A kubeconfig or context that does not exist is an AccessError naming the file looked in, where
// that file came from, the context and what is missing, before any request.
func TestAccessErrorNamesFileAndContext(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.yaml")
	require.NoError(t, os.WriteFile(other, []byte("apiVersion: v1\nkind: Config\ncontexts:\n- name: other\n  context: {cluster: other}\nclusters:\n- name: other\n  cluster: {server: https://127.0.0.1:1}\n"), 0o600))
	home := filepath.Join(dir, "home", ".kube", "config")
	tests := []struct {
		name       string
		kubeconfig string // empty: the default rules with KUBECONFIG unset and ~/.kube/config at home
		context    string
		want       string
	}{
		{"a missing file", filepath.Join(dir, "absent.yaml"), "runtime", `context "runtime" of kubeconfig ` + filepath.Join(dir, "absent.yaml") + ` (the cluster block's kubeconfig): the file does not exist`},
		{"a missing context", other, "runtime", `context "runtime" of kubeconfig ` + other + ` (the cluster block's kubeconfig): it has no such context`},
		{"no current context", other, "", `the current context of kubeconfig ` + other + ` (the cluster block's kubeconfig): it names no current context`},
		{"no default kubeconfig", "", "runtime", `context "runtime" of kubeconfig ` + home + ` (~/.kube/config: KUBECONFIG is not set): the file does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(clientcmd.RecommendedConfigPathEnvVar, "")
			access := Access{Kubeconfig: tt.kubeconfig, Context: tt.context}
			rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: tt.kubeconfig, Precedence: []string{home}}
			_, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: tt.context}).ClientConfig()
			require.Error(t, err)
			got := accessError(access, rules, err)
			assert.Equal(t, tt.want, got.Error())
			assert.Equal(t, err, errors.Unwrap(got))
		})
	}
	_, err := LoadRESTConfig(Access{Kubeconfig: filepath.Join(dir, "absent.yaml"), Context: "runtime"})
	var access *AccessError
	require.True(t, errors.As(err, &access))
	assert.Equal(t, "the file does not exist", access.Problem)
}
